"""Extract MindSpore's beginner tutorials (r2.4.1) into tests/tutorials/r2_4_1: each tutorial's
Python code blocks, dedented and joined in order, as ``<name>.py`` (run verbatim by
tests/tutorials/test_beginner_tutorials.py), and the printed output the tutorial shows after
each code block (MindSpore 2.4.1's own, on real MNIST) as ``<name>.expected.txt``.

    python -m tools.tutorials.extract /path/to/mindspore-ai/docs   # a git checkout

An output block is one fenced ``text`` block that directly follows a code block (prose
between them makes it an illustration, such as a folder tree); the output of a block that
calls ``download(`` is the `download` package's progress, not MindSpore's, and is left out.
"""
import re
import subprocess
import sys
import textwrap
from pathlib import Path

REF = "r2.4.1"
NAMES = ("quick_start", "tensor", "dataset", "model", "autograd", "train", "save_load",
         "accelerate_with_static_graph", "mixed_precision")
OUT = Path(__file__).resolve().parents[2] / "tests" / "tutorials" / "r2_4_1"
FENCE = re.compile(r"^([ \t]*)```(python|text)[ \t]*\n(.*?)^[ \t]*```[ \t]*\n", re.S | re.M)


def blocks(markdown):
    """[(kind, code, follows_code)] of the fenced python/text blocks in order; follows_code:
    only blank lines separate the block from the previous fenced block, a python one."""
    found, end, previous = [], 0, None
    for match in FENCE.finditer(markdown):
        between = markdown[end:match.start()]
        follows = previous == "python" and not between.strip()
        found.append((match.group(2), textwrap.dedent(match.group(3)), follows))
        end, previous = match.end(), match.group(2)
    return found


def extract(docs, name):
    text = subprocess.run(["git", "-C", docs, "show",
                           f"{REF}:tutorials/source_en/beginner/{name}.md"],
                          capture_output=True, text=True, check=True).stdout
    code, expected, last_code = [], [], ""
    for kind, body, follows in blocks(text):
        if kind == "python":
            code.append(body)
            last_code = body
        elif follows and "download(" not in last_code:
            expected.append(body)
    (OUT / f"{name}.py").write_text("\n\n".join(code))
    (OUT / f"{name}.expected.txt").write_text("".join(expected))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    for name in NAMES:
        extract(argv[0], name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
