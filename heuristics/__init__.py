"""gconv.heuristics"""
