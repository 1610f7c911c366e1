"""The c_class helpers downstream code reaches (upstream names): field annotation warnings,
Field objects on the reflection records, C++ type hooks as class attributes, payload-enum
fields on assignment, and the TypeField default/structural spellings."""

import warnings

import pytest

import tvm_ffi.testing as T
from tvm_ffi import core
from tvm_ffi.dataclasses import Field, c_class, field
from tvm_ffi.dataclasses.c_class import _attach_field_objects
from tvm_ffi.registry import _warn_missing_field_annotations


def test_warning_lists_only_unannotated_own_fields():
    info = T._TestCxxClassDerived.__tvm_ffi_type_info__
    partial = type("Partial", (), {"__annotations__": {"v_f64": float}})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _warn_missing_field_annotations(partial, info) == ["v_f32"]
    assert len(caught) == 1 and "does not annotate" in str(caught[0].message)
    assert "v_f32" in str(caught[0].message) and "v_i64" not in str(caught[0].message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _warn_missing_field_annotations(T._TestCxxClassDerived, info)
    assert caught == []


def test_attach_field_objects_types_fields_from_the_class():
    info = T._TestCxxClassBase.__tvm_ffi_type_info__
    saved = [tf.dataclass_field for tf in info.fields]
    try:
        _attach_field_objects(type("Bare", (), {}), info)
        assert all(isinstance(tf.dataclass_field, Field) and tf.dataclass_field.type is None
                   for tf in info.fields)
        _attach_field_objects(T._TestCxxClassBase, info)
        assert [tf.dataclass_field.type for tf in info.fields] == [int, int]
    finally:
        for tf, f in zip(info.fields, saved):
            tf.dataclass_field = f


def test_reflected_field_records():
    by_name = {tf.name: tf for tf in T.TestHash.__tvm_ffi_type_info__.fields}
    assert by_name["key"].dataclass_field.hash is True
    assert by_name["hash_ignored"].dataclass_field.hash is False
    derived = {tf.name: tf for tf in T._TestCxxClassDerived.__tvm_ffi_type_info__.fields}
    assert derived["v_f32"].c_default == pytest.approx(8.0)
    assert derived["v_f32"].c_default_factory is core.MISSING
    assert derived["v_f64"].c_structural_eq is None
    pair = T.TestIntPair.__tvm_ffi_type_info__.fields
    assert all(tf.dataclass_field.frozen == tf.frozen for tf in pair)
    assert field().converter(5) == 5
    assert c_class.__dataclass_transform__["kwargs"]["converter"] is field().converter


def test_cxx_hooks_become_class_attributes():
    assert callable(T.TestCustomCompare.__dict__["__ffi_eq__"])
    assert "__ffi_hash__" in T.TestCustomHash.__dict__
    assert "__ffi_eq__" not in T.TestCustomHash.__dict__  # only what the type registers


def test_enum_field_assignment_takes_payloads():
    holder = T._TestCxxEnumHolder(priority=10, opcode="+")
    holder.priority = 20
    holder.opcode = "*"
    assert holder.priority.same_as(T._TestCxxIntEnum.high)
    assert holder.opcode.same_as(T._TestCxxStrEnum.mul)
    with pytest.raises(TypeError, match="expected"):
        holder.priority = 99
    with pytest.raises(TypeError):
        holder.opcode = 3.5
    assert holder.priority.same_as(T._TestCxxIntEnum.high)
