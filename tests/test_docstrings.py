"""Every public name of the package documents itself: the functions of ``tegula`` and of its
public modules, and the methods and properties of ``Array`` and ``random.Generator``."""

import inspect

import pytest

import tegula as tg

MODULES = [tg, tg.linalg, tg.fft, tg.random, tg.config, tg.glm]


def public_names(module):
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    return [n for n in names if not n.startswith("_")]


def undocumented(owner, names):
    out = []
    for name in names:
        obj = inspect.getattr_static(owner, name) if inspect.isclass(owner) else getattr(owner, name)
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if inspect.ismodule(obj) or not (callable(obj) or isinstance(obj, property)):
            continue
        if not (getattr(obj, "__doc__", None) or "").strip():
            out.append(name)
    return out


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_public_function_has_a_docstring(module):
    assert undocumented(module, public_names(module)) == []


@pytest.mark.parametrize("cls", [tg.Array, tg.random.Generator], ids=lambda c: c.__name__)
def test_every_public_method_and_property_has_a_docstring(cls):
    names = [n for n in vars(cls) if not n.startswith("_")]
    assert undocumented(cls, names) == []
