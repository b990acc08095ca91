"""mindspore.dataset: sources, the chainable pipeline, samplers, config and transforms."""
from minispore.dataset import config
from minispore.dataset import transforms, vision
from minispore.dataset.engine import dataset_methods as _dataset_methods
from minispore.dataset.engine.datasets import Dataset
from minispore.dataset.engine.iterators import DictIterator, TupleIterator
from minispore.dataset.engine.operations import ZipDataset, _dataset_list
from minispore.dataset.engine.samplers import (DistributedSampler, RandomSampler, Sampler,
                                               SequentialSampler, SubsetRandomSampler,
                                               SubsetSampler)
from minispore.dataset.engine.cifar import Cifar10Dataset
from minispore.dataset.engine.class_samplers import PKSampler, WeightedRandomSampler
from minispore.dataset.engine.file_rows import Shuffle
from minispore.dataset.engine.image_folder import ImageFolderDataset
from minispore.dataset.engine.mind_dataset import MindDataset
from minispore.dataset.engine.random_source import RandomDataset
from minispore.dataset.engine.schema import Schema
from minispore.dataset.engine.text_files import CSVDataset, TextFileDataset
from minispore.dataset.engine.sources import (FashionMnistDataset, GeneratorDataset, MnistDataset,
                                             NumpySlicesDataset, PaddedDataset)
from minispore.dataset.synth_cifar10 import synth_cifar10
from minispore.dataset.synth_mnist import synth_mnist

__all__ = ["config", "transforms", "vision", "Dataset", "DictIterator", "TupleIterator",
           "DistributedSampler", "PKSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "SubsetSampler", "WeightedRandomSampler", "Shuffle",
           "Cifar10Dataset", "CSVDataset", "FashionMnistDataset", "GeneratorDataset",
           "ImageFolderDataset", "MindDataset", "MnistDataset", "NumpySlicesDataset", "PaddedDataset",
           "RandomDataset", "Schema", "TextFileDataset", "synth_cifar10", "synth_mnist", "zip"]


def zip(datasets):  # noqa: A001 - MindSpore's name
    """The datasets of the tuple `datasets` side by side (see Dataset.zip)."""
    return ZipDataset(_dataset_list("zip", datasets, (tuple,)))

_dataset_methods.install()
