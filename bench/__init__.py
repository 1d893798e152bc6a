"""gconv.bench: problem sets, GPU timing, profiling against cuDNN and the roofline."""
