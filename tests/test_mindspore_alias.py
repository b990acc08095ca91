"""`python -m minispore SCRIPT`: MindSpore imports resolve to the same minispore module objects."""
import subprocess
import sys
import textwrap

import pytest

import minispore
from minispore._mindspore_alias import install, uninstall

SCRIPT = textwrap.dedent("""
    import sys
    import mindspore as ms
    from mindspore import nn, ops, Tensor
    from mindspore.common.initializer import Normal
    import mindspore.common.dtype as mstype
    import minispore
    import helper_mod
    assert ms is minispore and nn is minispore.nn and ops is minispore.ops
    assert mstype is minispore.common.dtype and Normal is minispore.common.initializer.Normal
    assert __name__ == "__main__"
    out = ops.add(Tensor([1.0, 2.0], ms.float32), Tensor([3.0, 4.0], ms.float32))
    print("ARGV", sys.argv[1:], out.asnumpy().tolist(), helper_mod.VALUE)
""")


@pytest.fixture
def alias():
    install()
    yield
    uninstall()


def run_script(tmp_path, body, *args):
    script = tmp_path / "train.py"
    script.write_text(body)
    (tmp_path / "helper_mod.py").write_text("VALUE = 7\n")
    return subprocess.run([sys.executable, "-m", "minispore", str(script), *args],
                          capture_output=True, text=True, cwd=tmp_path.parent, timeout=120)


def test_main_runs_script_with_mindspore_imports_and_args(tmp_path):
    proc = run_script(tmp_path, SCRIPT, "--epochs", "2")
    assert proc.returncode == 0, proc.stderr
    assert "ARGV ['--epochs', '2'] [4.0, 6.0] 7" in proc.stdout


def test_main_missing_module_names_minispore_module(tmp_path):
    proc = run_script(tmp_path, "import mindspore.no_such_thing\n")
    assert proc.returncode == 1
    assert ("No module named 'mindspore.no_such_thing': minispore has no module "
            "'minispore.no_such_thing'") in proc.stderr


def test_main_without_script_prints_usage():
    proc = subprocess.run([sys.executable, "-m", "minispore"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "usage: python -m minispore SCRIPT" in proc.stderr


def test_alias_gives_same_module_objects(alias):
    import mindspore
    import mindspore.nn
    import mindspore.ops.functional
    from mindspore.common import dtype
    assert mindspore is minispore
    assert mindspore.nn is minispore.nn
    assert sys.modules["mindspore.ops.functional"] is minispore.ops.functional
    assert dtype is minispore.common.dtype


def test_alias_missing_submodule_is_module_not_found(alias):
    with pytest.raises(ModuleNotFoundError, match="minispore has no module 'minispore.ops.nope'"):
        import mindspore.ops.nope  # noqa: F401


def test_uninstall_removes_alias():
    install()
    import mindspore  # noqa: F401
    uninstall()
    assert "mindspore" not in sys.modules
    with pytest.raises(ModuleNotFoundError):
        import mindspore  # noqa: F401,F811


def test_alias_serves_the_tutorials_context_spellings(alias):
    from mindspore import context  # noqa: the tutorials' 1.x-style import
    import mindspore as ms
    context.set_context(mode=context.PYNATIVE_MODE)
    assert context.get_context("mode") == ms.PYNATIVE_MODE
    assert ms.ParallelMode.SEMI_AUTO_PARALLEL == "semi_auto_parallel"
    assert ms.nn.Dense is minispore.nn.Dense


def test_mindspore_ops_function_holds_every_functional_operator(alias):
    # MindSpore's own tests: `from mindspore.ops import function as F; F.tanh(x)`.
    import numpy as np
    from mindspore.ops import function as F
    assert F.tanh is minispore.ops.tanh and F.matmul is minispore.ops.matmul
    out = F.tanh(minispore.Tensor(np.array([0.5], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), np.tanh([0.5]), rtol=1e-6)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_op'"):
        F.no_such_op      # noqa: B018


def test_minispore_ops_function_without_the_alias_is_only_its_own_modules():
    import minispore.ops.function as function
    with pytest.raises(AttributeError):
        function.tanh     # noqa: B018 - the fallback is MindSpore's layout, under the alias
