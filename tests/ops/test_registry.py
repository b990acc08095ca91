"""Every operator meets the contract: infer and impl defined, a cpu kernel (or a declared
kernel-free view), a bprop or an explicit `differentiable = False`, and a sharding rule or an
explicit `rules.replicate_only(reason)`.

Which classes are operators, and how kernels are found, is documented in tools/op_matrix.py.
"""
import pytest

from minispore.ops.primitive import Primitive
from tools.op_matrix import (KERNEL_FREE, functional_names, has_bprop_or_opt_out, kernel_exists,
                             kernel_refs, kernel_status, operator_classes, overrides, rows,
                             sharding_status)

OPERATORS = operator_classes()


def test_registry_sees_the_core_operators():
    assert {"Add", "MatMul", "ReduceSum", "Reshape", "Cast"} <= set(OPERATORS)
    # Abstract bases are not operators.
    assert not {"UnaryElementwise", "BinaryElementwise", "_Reduce"} & set(OPERATORS)


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_operator_defines_infer_and_impl(name):
    cls = OPERATORS[name]
    missing = [m for m in ("infer", "impl") if not overrides(cls, m)]
    assert not missing, f"{name} ({cls.__module__}) does not override {missing}"


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_operator_has_cpu_kernel(name):
    cls = OPERATORS[name]
    if name in KERNEL_FREE:
        assert not kernel_refs(cls), f"{name} is listed as kernel-free but calls kernels"
        return
    refs = kernel_refs(cls)
    assert refs, (f"{name} ({cls.__module__}): impl calls no kernel(family, name); call one, "
                  f"or list it in tools/op_matrix.py KERNEL_FREE with the reason")
    unresolved = [r for r in refs if r[0] is None]
    assert not unresolved, (f"{name}: kernel family not statically known in {refs}; pass a "
                            f"string literal or a class attribute")
    missing = [f"kernels/cpu/{family}.py:{kname}" for family, kname in refs
               if not kernel_exists("cpu", family, kname)]
    assert not missing, f"{name}: missing cpu kernels {missing}"


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_operator_has_a_cuda_twin_of_each_cpu_kernel(name):
    """device_target='GPU' runs the same impl with kernels/cuda functions of the same names
    (read from the source: importing kernels/cuda here would import numba.cuda too early)."""
    assert kernel_status(OPERATORS[name], "cuda") in ("y", "view"), (
        f"{name}: kernels/cuda lacks a twin of {kernel_refs(OPERATORS[name])}")


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_operator_has_bprop_or_is_marked_not_differentiable(name):
    cls = OPERATORS[name]
    assert has_bprop_or_opt_out(cls), (f"{name} ({cls.__module__}) defines no bprop; write one "
                                       f"or set `differentiable = False`")


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_operator_has_sharding_rule_or_is_replicate_only(name):
    cls = OPERATORS[name]
    assert sharding_status(cls) != "MISSING", (
        f"{name} ({cls.__module__}) declares no sharding_rule; add one from "
        f"minispore.ops.sharding or `rules.replicate_only(reason)`")
    if sharding_status(cls) == "repl":
        assert cls.sharding_rule.reason


def test_kernel_refs_follow_class_attributes_and_helpers():
    ops = OPERATORS
    assert kernel_refs(ops["Add"]) == [("elementwise", "add")]
    assert kernel_refs(ops["ReduceSum"]) == [("reduce", "sum_middle")]
    assert sorted(kernel_refs(ops["MatMul"])) == [("matmul", "int_matmul_into"),
                                                  ("matmul", "matmul_into")]


def test_checks_reject_an_incomplete_operator():
    class Broken(Primitive):
        def infer(self, x):
            return x

    assert not overrides(Broken, "impl")
    assert not has_bprop_or_opt_out(Broken)
    assert not kernel_exists("cpu", "no_such_family", "f")
    assert not kernel_exists("cpu", "matmul", "no_such_kernel")
    assert sharding_status(Broken) == "MISSING"


def test_functional_names_map_classes():
    names = functional_names()
    assert "add" in names["Add"] and "matmul" in names["MatMul"]


def test_matrix_rows_cover_every_operator():
    table = list(rows())
    assert [r[0] for r in table] == sorted(OPERATORS)
    assert all(len(r) == 6 for r in table)
