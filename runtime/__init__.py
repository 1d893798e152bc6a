"""gconv.runtime"""
