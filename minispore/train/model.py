"""Model: wraps a network with its loss, optimizer and metrics, and runs train / eval / predict
loops with callbacks."""
import logging

import numpy as np

from minispore import nn
from minispore.common.auto_parallel_context import get_auto_parallel_context
from minispore.common.context import context
from minispore.common.registry import REGISTRY
from minispore.common.tensor import Tensor
from minispore.parallel.settings import get_device_num
from minispore.train.callback._callback import (CallbackManager, InternalCallbackParam,
                                                RunContext)
from minispore.train.amp import build_train_network
from minispore.train.dataset_helper import DatasetHelper, connect_network_with_dataset
from minispore.train.metrics import Loss, get_metrics

logger = logging.getLogger("minispore")

_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict", "acc_level")
_AMP_LEVELS = ("O0", "O1", "O2", "O3", "auto")
_BOOST_LEVELS = ("O0", "O1", "O2")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _as_tensor(item):
    return Tensor(item) if isinstance(item, (np.ndarray, np.generic)) else item


def _with_placeholders(network, net_inputs, loss_fn):
    """`net.get_inputs() + loss_fn.get_inputs()[1:]` onto the built network: the loss cell's
    first placeholder stands for the logits, which the wrapper computes itself."""
    if net_inputs is None:
        return
    inputs = list(net_inputs)
    loss_inputs = loss_fn.get_inputs() if loss_fn is not None and hasattr(
        loss_fn, "get_inputs") else None
    if loss_inputs:
        inputs.extend(loss_inputs[1:])
    network.set_inputs(*inputs)


class Model:
    """``Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
    eval_indexes=None, amp_level='O0', boost_level='O0', **kwargs)``.

    With an optimizer the train network is ``TrainOneStepCell(WithLossCell(network, loss_fn),
    optimizer)`` (or ``TrainOneStepCell(network, optimizer)`` when the network computes its own
    loss); with only a loss it is ``WithLossCell``. ``metrics`` (a {name: Metric} dict or a set
    of names) need an eval network: ``eval_network`` or ``WithEvalCell(network, loss_fn)``,
    whose outputs (loss, logits, label) feed the metrics through ``eval_indexes`` [0, 1, 2].
    ``kwargs`` may only be loss_scale_manager, keep_batchnorm_fp32, boost_config_dict and
    acc_level.

    ``amp_level`` ("O0".."O3") converts the network as ``ms.amp.auto_mixed_precision`` does and
    computes the loss in float32 (``ms.amp.build_train_network``); a ``loss_scale_manager``
    (O2's default: ``DynamicLossScaleManager()``) makes the train network a
    ``TrainOneStepWithLossScaleCell``, whose overflowing steps are skipped.
    ``keep_batchnorm_fp32`` overrides the level's BatchNorm precision. amp_level "auto",
    boost_level other than "O0", boost_config_dict and acc_level raise NotImplementedError.

    >>> model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'),
    ...               nn.Momentum(net.trainable_params(), 0.01, 0.9),
    ...               metrics={"Accuracy": Accuracy()})
    >>> model.train(1, ds_train, callbacks=[LossMonitor()])
    >>> model.eval(ds_eval)
    {'Accuracy': 0.98...}
    """

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs):
        if not isinstance(network, nn.Cell):
            raise TypeError(f"For 'Model', the argument 'network' must be a Cell, but got "
                            f"{type(network).__name__}.")
        for key in kwargs:
            if key not in _KWARGS:
                raise ValueError(f"For 'Model', the keyword argument {key!r} is not recognized; "
                                 f"the valid keys are {list(_KWARGS)}.")
        if amp_level not in _AMP_LEVELS:
            raise ValueError(f"For 'Model', 'amp_level' must be one of {list(_AMP_LEVELS)}, but "
                             f"got {amp_level!r}.")
        if boost_level not in _BOOST_LEVELS:
            raise ValueError(f"For 'Model', 'boost_level' must be one of {list(_BOOST_LEVELS)}, "
                             f"but got {boost_level!r}.")
        if optimizer is None and amp_level != "O0":
            raise ValueError(f"For 'Model', 'amp_level' {amp_level!r} needs an optimizer, but "
                             f"'optimizer' is None.")
        if optimizer is None and kwargs.get("loss_scale_manager") is not None:
            raise ValueError("For 'Model', 'loss_scale_manager' needs an optimizer, but "
                             "'optimizer' is None.")
        if amp_level == "auto":
            raise NotImplementedError("For 'Model', amp_level 'auto' (per-device automatic "
                                      "mixed precision) is not supported by minispore; use "
                                      "'O0', 'O1', 'O2' or 'O3'.")
        if boost_level != "O0":
            raise NotImplementedError(f"For 'Model', boost_level {boost_level!r} is not "
                                      f"supported by minispore; use 'O0'.")
        for key in ("boost_config_dict", "acc_level"):
            if kwargs.get(key) is not None:
                raise NotImplementedError(f"For 'Model', {key!r} is not supported by "
                                          f"minispore (it configures boost).")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._amp_level = amp_level
        self._boost_level = boost_level
        self._loss_scale_manager = kwargs.get("loss_scale_manager")
        self._keep_batchnorm_fp32 = kwargs.get("keep_batchnorm_fp32")
        self._metric_fns = get_metrics(metrics)
        self._parallel_mode = get_auto_parallel_context("parallel_mode")
        self._device_number = get_device_num()
        self._train_network = self._build_train_network()
        self._eval_network, self._eval_indexes = self._build_eval_network(eval_network,
                                                                          eval_indexes)
        self._predict_network = network

    # -- network construction ----------------------------------------------------------------
    def _build_train_network(self):
        network = self._network
        if self._optimizer is not None:
            amp_kwargs = {}
            if self._loss_scale_manager is not None:
                amp_kwargs["loss_scale_manager"] = self._loss_scale_manager
            if self._keep_batchnorm_fp32 is not None:
                amp_kwargs["keep_batchnorm_fp32"] = self._keep_batchnorm_fp32
            network = build_train_network(network, self._optimizer, self._loss_fn,
                                          level=self._amp_level, **amp_kwargs)
        elif self._loss_fn is not None:
            network = nn.WithLossCell(network, self._loss_fn)
        if network is not self._network:
            _with_placeholders(network, self._network.get_inputs(), self._loss_fn)
        return network

    def _build_eval_network(self, eval_network, eval_indexes):
        if eval_network is not None:
            if not isinstance(eval_network, nn.Cell):
                raise TypeError(f"For 'Model', the argument 'eval_network' must be a Cell, but "
                                f"got {type(eval_network).__name__}.")
            if eval_indexes is not None and not (
                    isinstance(eval_indexes, list) and len(eval_indexes) == 3
                    and all(_is_int(i) for i in eval_indexes)):
                raise ValueError(f"For 'Model', 'eval_indexes' must be a list of 3 ints "
                                 f"(loss, predict, label positions), but got {eval_indexes!r}.")
            return eval_network, eval_indexes
        if not self._metric_fns:
            return None, None
        if self._loss_fn is None:
            raise ValueError("For 'Model', if 'metrics' is set and 'eval_network' is None, "
                             "'loss_fn' must not be None.")
        network = nn.WithEvalCell(self._network, self._loss_fn)
        _with_placeholders(network, self._network.get_inputs(), self._loss_fn)
        return network, [0, 1, 2]

    @property
    def train_network(self):
        return self._train_network

    @property
    def eval_network(self):
        return self._eval_network

    @property
    def predict_network(self):
        return self._predict_network

    # -- helpers -----------------------------------------------------------------------------
    def _check_reuse_dataset(self, dataset):
        owner = getattr(dataset, "__model_hash__", None)
        if owner is not None and owner != hash(self):
            raise RuntimeError("The dataset object had been used in other model by "
                               "model.train(...), please create a new dataset.")
        try:
            dataset.__model_hash__ = hash(self)
        except AttributeError:
            pass

    @staticmethod
    def _dataset_size(dataset, api):
        if not (hasattr(dataset, "create_tuple_iterator") and
                hasattr(dataset, "get_dataset_size")):
            raise TypeError(f"For 'Model.{api}', the dataset must provide create_tuple_iterator "
                            f"and get_dataset_size, but got {type(dataset).__name__}.")
        size = dataset.get_dataset_size()
        if size == 0:
            raise ValueError(f"For 'Model.{api}', there is no valid data in the dataset (its "
                             f"size is 0); please check the dataset files first.")
        return size

    @staticmethod
    def _check_sink(value, arg, api):
        """Whether `api` really sinks its dataset: training on the GPU target, as MindSpore
        does (its CPU build trains unsunk, and so does minispore there, with a warning)."""
        if not isinstance(value, bool):
            raise TypeError(f"For 'Model.{api}', the argument '{arg}' must be a bool, but got "
                            f"{type(value).__name__}.")
        if not value:
            return False
        if arg == "dataset_sink_mode" and api in ("train", "fit") and \
                context().get("device_target") == "GPU":
            return True
        if context().get("device_target") != "GPU":
            logger.warning("Model.%s: %s has no effect on the CPU target (MindSpore's CPU "
                           "build also runs with the dataset not sunk).", api, arg)
        else:
            logger.warning("Model.%s: %s is not implemented for evaluation in minispore; "
                           "it runs with the dataset not sunk (same results, one step "
                           "callback per batch).", api, arg)
        return False

    def _clear_metrics(self):
        for metric in self._metric_fns.values():
            metric.clear()

    def _update_metrics(self, outputs):
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if not isinstance(outputs, (tuple, list)):
            raise ValueError(f"The eval network's outputs must be a Tensor or a tuple of "
                             f"Tensors, but got {type(outputs).__name__}.")
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    def _base_cb_params(self, list_callback, mode, dataset_sink_mode):
        cb_params = InternalCallbackParam()
        cb_params.network = self._network
        cb_params.loss_fn = self._loss_fn
        cb_params.optimizer = self._optimizer
        cb_params.parallel_mode = self._parallel_mode
        cb_params.device_number = self._device_number
        cb_params.list_callback = list_callback
        cb_params.mode = mode
        cb_params.dataset_sink_mode = dataset_sink_mode
        cb_params.cur_step_num = 0
        cb_params.net_outputs = None
        return cb_params

    # -- training ----------------------------------------------------------------------------
    def _check_train_args(self, epoch, train_dataset, sink_size, initial_epoch, api):
        if not _is_int(epoch) or epoch <= 0:
            raise ValueError(f"For 'Model.{api}', the argument 'epoch' must be a positive int, "
                             f"but got {epoch!r}.")
        if not _is_int(initial_epoch) or initial_epoch < 0:
            raise ValueError(f"For 'Model.{api}', the argument 'initial_epoch' must be an int "
                             f">= 0, but got {initial_epoch!r}.")
        if initial_epoch >= epoch:
            raise ValueError(f"For 'Model.{api}', 'initial_epoch' ({initial_epoch}) must be "
                             f"less than 'epoch' ({epoch}).")
        if not _is_int(sink_size) or not (sink_size == -1 or sink_size > 0):
            raise ValueError(f"For 'Model.{api}', the argument 'sink_size' must be -1 or a "
                             f"positive int, but got {sink_size!r}.")
        size = self._dataset_size(train_dataset, api)
        self._check_reuse_dataset(train_dataset)
        return size

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1,
              initial_epoch=0):
        """Run ``epoch - initial_epoch`` epochs over ``train_dataset``, feeding each row's
        columns to the train network, with callbacks (cb_params.cur_step_num is global and
        1-based, batch_num is the steps per epoch)."""
        sink = self._check_sink(dataset_sink_mode, "dataset_sink_mode", "train")
        size = self._check_train_args(epoch, train_dataset, sink_size, initial_epoch, "train")
        self._train(epoch, train_dataset, size, callbacks, initial_epoch,
                    sink=(dataset_sink_mode, sink, sink_size))

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1,
            initial_epoch=0):
        """Train, evaluating on ``valid_dataset`` every ``valid_frequency`` epochs (an int, or a
        list of 1-based epoch numbers). Results reach callbacks as cb_params.metrics and
        cb_params.eval_results (which also holds 'eval_loss')."""
        sink = self._check_sink(dataset_sink_mode, "dataset_sink_mode", "fit")
        self._check_sink(valid_dataset_sink_mode, "valid_dataset_sink_mode", "fit")
        size = self._check_train_args(epoch, train_dataset, sink_size, initial_epoch, "fit")
        if valid_dataset is not None:
            if not self._metric_fns:
                raise ValueError("For 'Model.fit', 'metrics' must be set in Model when "
                                 "'valid_dataset' is given.")
            self._dataset_size(valid_dataset, "fit")
            if _is_int(valid_frequency):
                if valid_frequency <= 0:
                    raise ValueError(f"For 'Model.fit', 'valid_frequency' must be a positive "
                                     f"int, but got {valid_frequency}.")
            elif not (isinstance(valid_frequency, list) and
                      all(_is_int(v) and v > 0 for v in valid_frequency)):
                raise ValueError(f"For 'Model.fit', 'valid_frequency' must be a positive int or "
                                 f"a list of positive ints, but got {valid_frequency!r}.")
        self._train(epoch, train_dataset, size, callbacks, initial_epoch,
                    valid=(valid_dataset, valid_frequency) if valid_dataset is not None else None,
                    sink=(dataset_sink_mode, sink, sink_size))

    @staticmethod
    def _should_eval(epoch_num, frequency):
        if isinstance(frequency, list):
            return epoch_num in frequency
        return epoch_num % frequency == 0

    def _steps_done_by_servers(self, initial_epoch, size):
        """(epochs, batches) of this run already trained before a restart: with MS_ENABLE_RECOVERY
        the parameter servers restore a step, counted from the first step of the job
        (``initial_epoch`` epochs of ``size`` steps come before this call's first)."""
        hook = REGISTRY.plugged("nn.parameter_server")
        if hook is None or self._optimizer is None or \
                not any(p.is_param_ps for p in self._optimizer.parameters):
            return 0, 0
        return divmod(max(hook.resume_step() - initial_epoch * size, 0), size)

    def _train(self, epoch, dataset, size, callbacks, initial_epoch, valid=None,
               sink=(False, False, -1)):
        """`sink`: (dataset_sink_mode as asked, whether it really sinks, sink_size)."""
        asked, sunk, sink_size = sink
        sink_size = size if sink_size == -1 else sink_size
        epochs_done, skip = self._steps_done_by_servers(initial_epoch, size)
        if epochs_done or skip:
            if sunk:
                raise NotImplementedError("Model.train: resuming from the parameter servers' "
                                          "step with dataset_sink_mode=True.")
            logger.info("Model.train: the parameter servers resumed at step %d; skipping the "
                        "%d batch(es) already trained, from epoch %d.",
                        (initial_epoch + epochs_done) * size + skip,
                        epochs_done * size + skip, initial_epoch + epochs_done + 1)
        initial_epoch += epochs_done
        if initial_epoch >= epoch:
            return
        with CallbackManager(callbacks) as list_callback:
            cb_params = self._base_cb_params(list_callback, "train", sunk)
            cb_params.train_network = self._train_network
            cb_params.epoch_num = epoch
            # MindSpore counts sink_size steps per epoch whenever sink mode is asked for, also
            # where its CPU build then trains unsunk
            cb_params.batch_num = sink_size if asked else size
            cb_params.train_dataset = dataset
            cb_params.initial_epoch = initial_epoch
            cb_params.cur_epoch_num = initial_epoch
            cb_params.cur_step_num = initial_epoch * size
            cb_params.train_dataset_element = None
            run_context = RunContext(cb_params)
            self._train_network.set_train(True)
            if sunk:
                feed = _SinkFeed(self, dataset, epoch - initial_epoch, sink_size, size)
            else:
                feed = _HostFeed(self, dataset, epoch - initial_epoch)
            try:
                list_callback.on_train_begin(run_context)
                for epoch_index in range(initial_epoch, epoch):
                    cb_params.cur_epoch_num = epoch_index + 1
                    list_callback.on_train_epoch_begin(run_context)
                    for steps, element, run in feed.epoch():
                        cb_params.cur_step_num += steps
                        if skip:          # trained before the restart (the servers hold it)
                            skip -= 1
                            continue
                        cb_params.train_dataset_element = element
                        list_callback.on_train_step_begin(run_context)
                        cb_params.net_outputs = run()
                        list_callback.on_train_step_end(run_context)
                        if run_context.get_stop_requested():
                            break
                    cb_params.metrics, cb_params.eval_results = None, {}
                    if valid is not None and self._should_eval(epoch_index + 1, valid[1]):
                        results = self._evaluate(valid[0], callbacks, add_eval_loss=True)
                        self._train_network.set_train(True)
                        cb_params.eval_results = dict(results)
                        cb_params.metrics = {k: v for k, v in results.items()
                                             if k != "eval_loss"}
                    list_callback.on_train_epoch_end(run_context)
                    if run_context.get_stop_requested():
                        break
                list_callback.on_train_end(run_context)
            finally:
                feed.close()

    def _train_step(self, element):
        """One training step on a batch (ModelThor switches THOR's flags around it)."""
        return self._train_network(*element)

    # -- evaluation and prediction -----------------------------------------------------------
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """One pass of the eval network over ``valid_dataset``; returns
        ``{metric name: value}``, e.g. ``{'Accuracy': 0.98}``."""
        self._check_sink(dataset_sink_mode, "dataset_sink_mode", "eval")
        if not self._metric_fns:
            raise ValueError("For 'Model.eval', the model argument 'metrics' can not be None or "
                             "empty, you should set the argument 'metrics' for model.")
        self._dataset_size(valid_dataset, "eval")
        return self._evaluate(valid_dataset, callbacks, add_eval_loss=False)

    def _evaluate(self, dataset, callbacks, add_eval_loss):
        metric_fns = dict(self._metric_fns)
        if add_eval_loss and self._eval_indexes is not None:
            metric_fns["eval_loss"] = Loss()
        saved, self._metric_fns = self._metric_fns, metric_fns
        try:
            with CallbackManager(callbacks) as list_callback:
                cb_params = self._base_cb_params(list_callback, "eval", False)
                cb_params.eval_network = self._eval_network
                cb_params.valid_dataset = dataset
                cb_params.batch_num = dataset.get_dataset_size()
                cb_params.cur_epoch_num = 1
                run_context = RunContext(cb_params)
                self._clear_metrics()
                self._eval_network.set_train(False)
                list_callback.on_eval_begin(run_context)
                list_callback.on_eval_epoch_begin(run_context)
                iterator = dataset.create_tuple_iterator(num_epochs=1, do_copy=True)
                try:
                    for element in iterator:
                        element = [_as_tensor(x) for x in element]
                        cb_params.cur_step_num += 1
                        list_callback.on_eval_step_begin(run_context)
                        outputs = self._eval_network(*element)
                        cb_params.net_outputs = outputs
                        list_callback.on_eval_step_end(run_context)
                        self._update_metrics(outputs)
                        if run_context.get_stop_requested():
                            break
                finally:
                    stop = getattr(iterator, "stop", None)
                    if callable(stop):
                        stop()
                list_callback.on_eval_epoch_end(run_context)
                metrics = {name: metric.eval() for name, metric in self._metric_fns.items()}
                cb_params.metrics = metrics
                list_callback.on_eval_end(run_context)
            return metrics
        finally:
            self._metric_fns = saved

    def predict(self, *predict_data, backend=None, **kwargs):
        """The network's output on ``predict_data`` (Tensors or numpy arrays), in eval mode."""
        for i, x in enumerate(predict_data):
            if not isinstance(x, (Tensor, np.ndarray, int, float, tuple, list)) and x is not None:
                raise TypeError(f"For 'Model.predict', input {i} must be a Tensor, numpy array "
                                f"or number, but got {type(x).__name__}.")
        self._predict_network.set_train(False)
        return self._predict_network(*[_as_tensor(x) for x in predict_data])


class _HostFeed:
    """Each step's batch read on the host and passed to the train network."""

    def __init__(self, model, dataset, epochs):
        self.model = model
        self.iterator = dataset.create_tuple_iterator(num_epochs=epochs, do_copy=True)

    def epoch(self):
        """(steps, the batch, run) per step of one epoch."""
        for element in self.iterator:
            element = [_as_tensor(x) for x in element]
            yield 1, element, lambda e=element: self.model._train_step(e)

    def close(self):
        stop = getattr(self.iterator, "stop", None)     # a custom dataset's may have none
        if callable(stop):
            stop()


class _SinkFeed:
    """Sink mode (GPU target): the dataset goes into a data queue read by GetNext inside the
    train network (minispore/train/dataset_helper.py). An epoch is `sink_size` steps; under
    GRAPH_MODE one call runs them all and the step callbacks run once per sink, as MindSpore's
    (its cur_step_num then advances by sink_size)."""

    def __init__(self, model, dataset, epochs, sink_size, size):
        if type(model)._train_step is not Model._train_step:
            raise NotImplementedError(f"{type(model).__name__}.train with "
                                      f"dataset_sink_mode=True on the GPU target.")
        if size % sink_size:
            logger.info("In dataset sink mode the dataset size (%d) should be a multiple of "
                        "sink_size (%d).", size, sink_size)
        self.helper = DatasetHelper(dataset, True, sink_size,
                                    epoch_num=-(-epochs * sink_size // size))
        self.network = connect_network_with_dataset(model._train_network, self.helper)

    def epoch(self):
        steps = self.helper.sink_size()
        for inputs in self.helper:
            yield steps, inputs, self.network

    def close(self):
        self.helper.stop_send()
        self.helper.release()
