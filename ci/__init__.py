"""gconv.ci"""
