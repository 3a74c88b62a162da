"""The constants scripts/pictures draws from, read from the sources as they are: a rung's
`constexpr int` lines (static members too) and the template arguments its launcher passes,
evaluated as C++ integer expressions; one function's return expression (rung 8's swizzle);
the runner's timing policy; a committed sweep's context. Nothing is copied by hand."""
import glob
import json
import os
import re

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][\w:]*)|(&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%()<>?:^&|!]))")
_BINARY = {  # precedence (higher binds tighter) and the C++ meaning on ints
    "||": (1, lambda a, b: int(bool(a) or bool(b))),
    "&&": (2, lambda a, b: int(bool(a) and bool(b))),
    "|": (3, lambda a, b: a | b), "^": (4, lambda a, b: a ^ b), "&": (5, lambda a, b: a & b),
    "==": (6, lambda a, b: int(a == b)), "!=": (6, lambda a, b: int(a != b)),
    "<": (7, lambda a, b: int(a < b)), ">": (7, lambda a, b: int(a > b)),
    "<=": (7, lambda a, b: int(a <= b)), ">=": (7, lambda a, b: int(a >= b)),
    "<<": (8, lambda a, b: a << b), ">>": (8, lambda a, b: a >> b),
    "+": (9, lambda a, b: a + b), "-": (9, lambda a, b: a - b), "*": (10, lambda a, b: a * b),
    "/": (10, lambda a, b: int(a / b)), "%": (10, lambda a, b: a - int(a / b) * b),
}


class Unknown(Exception):
    """An expression this reader cannot evaluate (a name it does not know, a call)."""


def evaluate(text, env):
    """The value of the C++ integer expression `text`, names looked up in `env` (a `T::` or
    `Tile::` prefix is ignored)."""
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise Unknown(text)
        tokens.append(m.group(0).strip())
        pos = m.end()
    tokens.append("")

    def primary(i):
        t = tokens[i]
        if t == "(":
            v, i = expr(i + 1, 0)
            if tokens[i] != ")":
                raise Unknown(text)
            return v, i + 1
        if t in ("-", "!"):
            v, i = primary(i + 1)
            return (-v if t == "-" else int(not v)), i
        if t.isdigit():
            return int(t), i + 1
        name = t.split("::")[-1]
        if name not in env or tokens[i + 1] in ("(", "<"):
            raise Unknown(text)
        return env[name], i + 1

    def expr(i, least):
        v, i = primary(i)
        while True:
            t = tokens[i]
            if t == "?" and least == 0:
                a, i = expr(i + 1, 0)
                if tokens[i] != ":":
                    raise Unknown(text)
                b, i = expr(i + 1, 0)
                v = a if v else b
                continue
            if t not in _BINARY or _BINARY[t][0] <= least:
                return v, i
            prec, op = _BINARY[t]
            w, i = expr(i + 1, prec)
            v = op(v, w)

    value, end = expr(0, 0)
    if tokens[end] != "":
        raise Unknown(text)
    return value


def _code(text):
    """`text` without its comments (so that no comment can change a picture)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


class Source:
    """One kernel or runner file of the tree at `root`, read once."""

    def __init__(self, root, pattern):
        found = sorted(glob.glob(os.path.join(root, pattern)))
        if not found:
            raise SystemExit(f"scripts/pictures: no file matches {pattern} under {root}")
        self.path = os.path.relpath(found[0], root)
        with open(found[0]) as f:
            self.code = _code(f.read())

    def find(self, regex, what):
        m = re.search(regex, self.code, re.S)
        if not m:
            raise SystemExit(f"scripts/pictures: {self.path} has no {what} (/{regex}/); the "
                             "picture's reader needs updating")
        return m

    def constants(self, env=None, scope=None):
        """Every `constexpr int NAME = EXPR;` (in `scope`, a regex that matches the struct or
        function holding them, if given) evaluated in order; those it cannot evaluate are
        left out. `env` holds the names known before (template parameters)."""
        env = dict(env or {})
        code = self.find(scope, "scope").group(0) if scope else self.code
        declared = r"constexpr\s+(?:int|unsigned|long long|double)\s+(\w+)\s*=\s*([^;{]+);"
        for m in re.finditer(declared, code):
            try:
                env[m.group(1)] = evaluate(m.group(2), env)
            except (Unknown, ZeroDivisionError):
                pass
        return env

    def launch_args(self, template="launch_tile",
                    caller=r"(?:cudaError_t|runtime::LaunchAnswer) launch\(const Gemm"):
        """{parameter: value} of the `template<...>` call in the function `caller` (the tile a
        rung runs), named by the template's parameter list."""
        params = self.find(r"template\s*<([^>]*)>\s*(?:cudaError_t|runtime::LaunchAnswer)\s+" +
                           template + r"\s*\(",
                           f"template {template}").group(1)
        names = [p.split()[-1] for p in params.split(",")]
        body = self.find(caller + r".*?\n}", f"function matching {caller}").group(0)
        args = re.search(template + r"<([^>]*)>", body)
        if not args:
            raise SystemExit(f"scripts/pictures: {self.path}: no {template}<...> in launch()")
        return dict(zip(names, (evaluate(a, {}) for a in args.group(1).split(","))))

    def returns(self, function):
        """The expression `function` returns (a one-line __device__ function)."""
        m = self.find(r"\b" + function + r"\s*\(([^)]*)\)\s*\{\s*return\s+([^;]+);",
                      f"function {function}")
        return [p.split()[-1] for p in m.group(1).split(",")], m.group(2).strip()


def rung_source(root, number):
    return Source(root, f"kernels/{number:02d}_*.cu")


def sweep_context(root, path="results/h200/bench.json"):
    """The context of a committed sweep: the GPU's name, SM count and the shapes' kinds."""
    with open(os.path.join(root, path)) as f:
        context = json.load(f).get("context", {})
    missing = [k for k in ("gpu", "sm_count", "sgemm_shape_kinds") if k not in context]
    if missing:
        raise SystemExit(f"scripts/pictures: {path}'s context has no {', '.join(missing)}")
    kinds = dict(reversed(k.split("=")) for k in context["sgemm_shape_kinds"].split(","))
    return {"gpu": context["gpu"], "sms": int(context["sm_count"]), "kinds": kinds}
