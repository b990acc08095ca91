"""The pipeline engine: Dataset base and operations, sources, samplers, iterators."""
