"""ModelThor and ConvertModelUtils (MindSpore's mindspore.train.train_thor): a Model that runs
THOR's inverse update only every `frequency` steps.

As in MindSpore, the alternation belongs to dataset sink mode: with dataset_sink_mode=True the
first step of every `frequency` runs with the THOR flags on (the layers record their statistics
and the optimizer inverts them) and the others with them off (the stored inverses are reused);
without sink mode every step is a THOR step. minispore feeds a sunk dataset step by step (Model
warns), so callbacks see every step, where MindSpore's GPU build reports one per sink. Each
flag setting compiles its own graph in GRAPH mode ('train0' / 'train1' phases, MindSpore's).
"""
from minispore import nn
from minispore.train.model import Model

__all__ = ["ModelThor", "ConvertModelUtils"]

_THOR_OPTIMIZERS = ("ThorGpu", "ThorAscend")


class ModelThor(Model):
    """Model with THOR's step alternation (module docstring); ConvertModelUtils builds it."""

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level="O0", **kwargs):
        super().__init__(network, loss_fn, optimizer, metrics, eval_network, eval_indexes,
                         amp_level, **kwargs)
        thor_optimizer = network.optimizer if isinstance(network, nn.TrainOneStepCell) \
            else optimizer
        self._frequency = thor_optimizer.get_frequency()
        self._alternate = False
        self._steps = 0
        self._thor_on = True

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1,
              initial_epoch=0):
        self._alternate = dataset_sink_mode is True
        try:
            super().train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size,
                          initial_epoch)
        finally:
            self._alternate = False

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1,
            initial_epoch=0):
        if dataset_sink_mode is True and valid_dataset is not None:
            raise ValueError("Evaluation in training is currently not supported in the "
                             "second-order scenario of thor.")
        super().fit(epoch, train_dataset, valid_dataset, valid_frequency, callbacks,
                    dataset_sink_mode, valid_dataset_sink_mode, sink_size, initial_epoch)

    def _train_step(self, element):
        thor_on = True
        if self._alternate:
            thor_on = self._steps % self._frequency == 0
            self._steps += 1
        if thor_on != self._thor_on:
            self._train_network.add_flags_recursive(thor=thor_on)
            self._thor_on = thor_on
        object.__setattr__(self._train_network, "phase", "train0" if thor_on else "train1")
        return self._train_network(*element)


class ConvertModelUtils:
    """``ConvertModelUtils.convert_to_thor_model(model, network, loss_fn=None, optimizer=None,
    metrics=None, amp_level='O0', loss_scale_manager=None, keep_batchnorm_fp32=False)``:
    a ModelThor over the same arguments when `optimizer` is THOR's, else `model` itself."""

    @staticmethod
    def convert_to_thor_model(model, network, loss_fn=None, optimizer=None, metrics=None,
                              amp_level="O0", loss_scale_manager=None,
                              keep_batchnorm_fp32=False):
        if type(optimizer).__name__ not in _THOR_OPTIMIZERS:
            return model
        return ModelThor(network=network, loss_fn=loss_fn, optimizer=optimizer,
                         metrics=metrics, amp_level=amp_level,
                         loss_scale_manager=loss_scale_manager,
                         keep_batchnorm_fp32=keep_batchnorm_fp32)
