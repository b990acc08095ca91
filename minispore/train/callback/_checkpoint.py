"""CheckpointConfig and ModelCheckpoint: save `{prefix}-{epoch}_{step}.ckpt` during training and
keep the newest few."""
import os
import re
import time

from minispore.train.callback._callback import Callback
from minispore.train.serialization import _wait_async, save_checkpoint


def _non_negative_int(value, arg):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"For 'CheckpointConfig', the argument '{arg}' must be an int >= 0, "
                         f"but got {value!r}.")
    return value


class CheckpointConfig:
    """When and what ModelCheckpoint saves.

    Save every ``save_checkpoint_steps`` steps (or, when that is 0/None, every
    ``save_checkpoint_seconds``); keep at most ``keep_checkpoint_max`` files (or, when that is
    0/None, one per ``keep_checkpoint_per_n_minutes``). ``saved_network`` replaces the train
    network as what is saved; ``append_info`` is a list of "epoch_num", "step_num" and/or a dict
    saved alongside. All four counts 0/None: ValueError.
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, enc_key=None, enc_mode="AES-GCM",
                 exception_save=False, **kwargs):
        save_checkpoint_steps = _non_negative_int(save_checkpoint_steps, "save_checkpoint_steps")
        save_checkpoint_seconds = _non_negative_int(save_checkpoint_seconds,
                                                    "save_checkpoint_seconds")
        keep_checkpoint_max = _non_negative_int(keep_checkpoint_max, "keep_checkpoint_max")
        keep_checkpoint_per_n_minutes = _non_negative_int(keep_checkpoint_per_n_minutes,
                                                          "keep_checkpoint_per_n_minutes")
        if not (save_checkpoint_steps or save_checkpoint_seconds or keep_checkpoint_max
                or keep_checkpoint_per_n_minutes):
            raise ValueError("The input arguments 'save_checkpoint_steps', "
                             "'save_checkpoint_seconds', 'keep_checkpoint_max' and "
                             "'keep_checkpoint_per_n_minutes' can't be all None or 0.")
        for arg, value in (("integrated_save", integrated_save), ("async_save", async_save),
                           ("exception_save", exception_save)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'CheckpointConfig', the argument '{arg}' must be a bool, "
                                f"but got {type(value).__name__}.")
        if saved_network is not None and not hasattr(saved_network, "parameters_and_names"):
            raise TypeError(f"For 'CheckpointConfig', the argument 'saved_network' must be a "
                            f"Cell, but got {type(saved_network).__name__}.")
        self._save_checkpoint_steps = save_checkpoint_steps
        self._save_checkpoint_seconds = None if save_checkpoint_steps else save_checkpoint_seconds
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_per_n_minutes = keep_checkpoint_per_n_minutes
        if keep_checkpoint_max:
            self._keep_checkpoint_per_n_minutes = None
        elif not keep_checkpoint_per_n_minutes:
            self._keep_checkpoint_max = 1
        self._integrated_save = integrated_save
        self._async_save = async_save
        self._saved_network = saved_network
        self._append_dict = self._check_append_info(append_info)
        self._enc_key = enc_key
        self._enc_mode = enc_mode
        self._exception_save = exception_save

    @staticmethod
    def _check_append_info(append_info):
        if append_info is None:
            return None
        if not isinstance(append_info, list):
            raise TypeError(f"For 'CheckpointConfig', the argument 'append_info' must be a "
                            f"list, but got {type(append_info).__name__}.")
        result = {}
        for item in append_info:
            if isinstance(item, str) and item in ("epoch_num", "step_num"):
                result[item] = 0
            elif isinstance(item, dict):
                result.update(item)
            else:
                raise ValueError(f"For 'CheckpointConfig', each element of 'append_info' must be "
                                 f"'epoch_num', 'step_num' or a dict, but got {item!r}.")
        return result

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps)
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes)
    integrated_save = property(lambda self: self._integrated_save)
    async_save = property(lambda self: self._async_save)
    saved_network = property(lambda self: self._saved_network)
    append_dict = property(lambda self: self._append_dict)
    enc_key = property(lambda self: self._enc_key)
    enc_mode = property(lambda self: self._enc_mode)
    exception_save = property(lambda self: self._exception_save)

    def get_checkpoint_policy(self):
        return {"save_checkpoint_steps": self._save_checkpoint_steps,
                "save_checkpoint_seconds": self._save_checkpoint_seconds,
                "keep_checkpoint_max": self._keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self._keep_checkpoint_per_n_minutes,
                "saved_network": self._saved_network}


def _unused_prefix(directory, prefix):
    """MindSpore appends `_N` to the prefix when `prefix-*.ckpt` files already exist there, so
    a second run never overwrites or prunes the first run's files."""
    suffix = 0
    pattern = re.compile(re.escape(prefix) + r"(?:_(\d+))?-")
    for filename in os.listdir(directory):
        if not filename.endswith(".ckpt"):
            continue
        match = pattern.match(filename)
        if match:
            suffix = max(suffix, int(match.group(1)) + 1 if match.group(1) else 1)
    return f"{prefix}_{suffix}" if suffix else prefix


class ModelCheckpoint(Callback):
    """``ModelCheckpoint(prefix='CKP', directory=None, config=None)``: during Model.train, save
    the train network (with the optimizer state) as ``{directory}/{prefix}-{epoch}_{step}.ckpt``
    (step within the epoch, 1-based) per ``config``, plus once at the end of training, and
    delete the oldest files beyond ``keep_checkpoint_max``."""

    def __init__(self, prefix="CKP", directory=None, config=None):
        super().__init__()
        if callable(prefix):
            prefix = prefix()
        if not isinstance(prefix, str) or not prefix or "/" in prefix:
            raise ValueError(f"For 'ModelCheckpoint', the argument 'prefix' must be a non-empty "
                             f"str without '/', but got {prefix!r}.")
        if callable(directory):
            directory = directory()
        if directory is not None and not isinstance(directory, str):
            raise ValueError(f"For 'ModelCheckpoint', the argument 'directory' must be a str, "
                             f"but got {type(directory).__name__}.")
        if config is None:
            config = CheckpointConfig()
        if not isinstance(config, CheckpointConfig):
            raise TypeError(f"For 'ModelCheckpoint', the argument 'config' must be a "
                            f"CheckpointConfig, but got {type(config).__name__}.")
        self._directory = os.path.abspath(directory if directory is not None else os.getcwd())
        os.makedirs(self._directory, exist_ok=True)
        self._config = config
        self._prefix = _unused_prefix(self._directory, prefix)
        self._latest_ckpt_file_name = ""
        self._last_time = time.time()
        self._last_time_for_keep = time.time()
        self._last_triggered_step = 0

    @property
    def latest_ckpt_file_name(self):
        return self._latest_ckpt_file_name

    def on_train_step_end(self, run_context):
        self._save_ckpt(run_context.original_args())

    def on_train_end(self, run_context):
        self._save_ckpt(run_context.original_args(), force_to_save=True)
        _wait_async()

    def _should_save(self, cb_params, force_to_save):
        steps = self._config.save_checkpoint_steps
        if steps:
            return force_to_save or cb_params.cur_step_num >= self._last_triggered_step + steps
        seconds = self._config.save_checkpoint_seconds
        if seconds:
            now = time.time()
            if force_to_save or now - self._last_time > seconds:
                self._last_time = now
                return True
        return force_to_save

    def _own_files(self):
        """This prefix's checkpoints, oldest first (mtime, then epoch and step)."""
        pattern = re.compile(re.escape(self._prefix) + r"-(\d+)_(\d+)\.ckpt$")
        found = []
        for filename in os.listdir(self._directory):
            match = pattern.match(filename)
            if match:
                path = os.path.join(self._directory, filename)
                found.append((os.stat(path).st_mtime_ns, int(match.group(1)),
                              int(match.group(2)), path))
        return [path for *_, path in sorted(found)]

    def _prune(self):
        files = self._own_files()
        keep_max = self._config.keep_checkpoint_max
        minutes = self._config.keep_checkpoint_per_n_minutes
        if keep_max:
            for path in files[:max(0, len(files) - keep_max + 1)]:
                os.remove(path)
        elif minutes and time.time() - self._last_time_for_keep < 60 * minutes:
            # Within the current window keep only its first checkpoint.
            now = time.time()
            recent = [p for p in files if now - os.path.getmtime(p) < 60 * minutes]
            for path in recent[1:]:
                os.remove(path)
        else:
            self._last_time_for_keep = time.time()

    def _save_ckpt(self, cb_params, force_to_save=False):
        if cb_params.cur_step_num == self._last_triggered_step:
            return
        if not self._should_save(cb_params, force_to_save):
            return
        step_in_epoch = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        self._last_triggered_step = cb_params.cur_step_num
        self._prune()
        path = os.path.join(self._directory, f"{self._prefix}-{cb_params.cur_epoch_num}_"
                                             f"{step_in_epoch}.ckpt")
        append = None
        if self._config.append_dict is not None:
            append = dict(self._config.append_dict)
            if "epoch_num" in append:
                append["epoch_num"] = cb_params.cur_epoch_num
            if "step_num" in append:
                append["step_num"] = cb_params.cur_step_num
        network = self._config.saved_network or cb_params.train_network
        save_checkpoint(network, path, self._config.integrated_save, self._config.async_save,
                        append)
        self._latest_ckpt_file_name = path
