"""mindspore.mindrecord: FileWriter and MindSpore's MindRecord exception classes.

The code lives in the dataset layer (minispore/dataset/engine/mindrecord*.py), beside
MindDataset which reads the files back; this package only gives it MindSpore's import path.
minispore's MindRecord files are its own layout, not interchangeable with MindSpore's.
"""
from minispore.dataset.engine.mindrecord import FileWriter
from minispore.dataset.engine.mindrecord_format import (MindRecordException, MRMAddSchemaError,
                                                        MRMDefineIndexError,
                                                        MRMInvalidSchemaError, MRMOpenError,
                                                        MRMOpenForAppendError, ParamTypeError,
                                                        ParamValueError)

__all__ = ["FileWriter", "MindRecordException", "MRMAddSchemaError", "MRMDefineIndexError",
           "MRMInvalidSchemaError", "MRMOpenError", "MRMOpenForAppendError", "ParamTypeError",
           "ParamValueError"]
