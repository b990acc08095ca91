"""`python -m minispore SCRIPT [ARGS]`: run a MindSpore script with `mindspore` resolved to minispore."""
import os
import runpy
import sys

from minispore._mindspore_alias import install

USAGE = "usage: python -m minispore SCRIPT [ARGS...]"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    script = argv[0]
    install()
    sys.argv = argv
    # As `python SCRIPT` does: the script's folder comes first, so its sibling modules import.
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
