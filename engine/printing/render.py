"""Print Format templates: Jinja in `jinja2.sandbox.SandboxedEnvironment` with autoescape on.

A template reaches no Python internals (the sandbox refuses `_` attributes, `__globals__`, `mro`,
unsafe callables), sees only plain records (never a Document, whose methods write), and is bounded:
`range` and loops over it share a budget of iterations per rendering, `*` and `**` cannot build huge
strings, lists or numbers, and the output stops at `MAX_OUTPUT` characters. Every value is escaped
unless its field is HTML by type (HTML, Text Editor), which is sanitised by nh3 instead. A template
that fails raises ValidationError naming the format and the line, never anything else.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

import nh3
from jinja2 import BaseLoader, Environment, StrictUndefined, TemplateError
from jinja2.sandbox import SandboxedEnvironment, SecurityError
from jinja2.utils import Cycler, Joiner, Namespace
from markupsafe import Markup

from engine import exceptions as exc
from engine.translation import _

MAX_OUTPUT = 2_000_000  # characters of HTML one rendering may produce
MAX_ITERATIONS = 200_000  # `range` items per rendering, all loops together
MAX_SEQUENCE = 100_000  # length of a string or list `*` may build
MAX_EXPONENT = 1_000
HTML_TYPES = frozenset({"HTML", "Text Editor", "HTML Editor"})
HTML_ATTRIBUTES = {"*": {"style", "class", "align", "width", "height", "colspan", "rowspan"},
                   "img": {"src", "alt"}, "a": {"href", "title"}}


def sanitise(value: Any) -> Markup:
    """HTML a user wrote (an HTML field, a letter head) with scripts, handlers and foreign tags removed."""
    return Markup(nh3.clean(str(value or ""), attributes=HTML_ATTRIBUTES, url_schemes={"http", "https", "data"}))


class _Budget:
    def __init__(self) -> None:
        self.left = MAX_ITERATIONS

    def range(self, *args: int) -> Iterator[int]:
        numbers = range(*args)
        if len(numbers) > self.left:
            raise SecurityError(_("range() may give at most {0} numbers in one print", MAX_ITERATIONS))
        self.left -= len(numbers)
        return iter(numbers)


def _sized(value: Any) -> int:
    return len(value) if isinstance(value, (str, list, tuple, bytes)) else 0


def _safe_multiply(left: Any, right: Any) -> Any:
    if (_sized(left) and isinstance(right, int) and _sized(left) * right > MAX_SEQUENCE) or \
            (_sized(right) and isinstance(left, int) and _sized(right) * left > MAX_SEQUENCE):
        raise SecurityError(_("A template may not build a string or list of more than {0} items", MAX_SEQUENCE))
    return operator.mul(left, right)


def _safe_power(left: Any, right: Any) -> Any:
    if isinstance(right, (int, float)) and abs(right) > MAX_EXPONENT:
        raise SecurityError(_("A template may not raise to a power above {0}", MAX_EXPONENT))
    return operator.pow(left, right)


class _PrintEnvironment(SandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator_name: str, left: Any, right: Any) -> Any:
        if operator_name == "*":
            return _safe_multiply(left, right)
        if operator_name == "**":
            return _safe_power(left, right)
        return super().call_binop(context, operator_name, left, right)


class _Source(BaseLoader):
    """One template's source under its format's name (so tracebacks name the format)."""

    def __init__(self, name: str, source: str) -> None:
        self.name, self.source = name, source

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        if template != self.name:
            raise TemplateError(_("A print format may not include other templates: {0}", template))
        return self.source, f"<print format {self.name}>", lambda: True


def _environment(name: str, source: str) -> _PrintEnvironment:
    # an empty field prints as nothing, not "None"
    env = _PrintEnvironment(autoescape=True, undefined=StrictUndefined, loader=_Source(name, source),
                            finalize=lambda value: "" if value is None else value)
    budget = _Budget()
    # Jinja's defaults but `lipsum` (unbounded text) and a `range` that counts
    env.globals = {"range": budget.range, "_": _, "dict": dict, "cycler": Cycler, "joiner": Joiner,
                   "namespace": Namespace}
    return env


def _line_of(error: BaseException, filename: str) -> int | None:
    lineno = getattr(error, "lineno", None)
    if isinstance(lineno, int):
        return lineno
    tb = error.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def render(name: str, source: str, context: dict[str, Any]) -> str:
    """The template `source` of print format `name` rendered with `context` (values escaped)."""
    filename = f"<print format {name}>"
    try:
        env = _environment(name, source)
        template = env.get_template(name)
        parts: list[str] = []
        size = 0
        for chunk in template.generate(**context):
            size += len(chunk)
            if size > MAX_OUTPUT:
                raise SecurityError(_("The print is longer than {0} characters", MAX_OUTPUT))
            parts.append(chunk)
        return "".join(parts)
    except exc.FwError:
        raise
    except Exception as error:  # a template's every failure is the template's
        line = _line_of(error, filename)
        message = str(error) or type(error).__name__
        if line is None:
            raise exc.ValidationError(_("Print Format {0} failed: {1}", name, message)) from None
        raise exc.ValidationError(_("Print Format {0} failed at line {1}: {2}", name, line, message)) from None
