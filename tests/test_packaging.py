"""setup.cfg lists every package explicitly (kernels/ installs as minispore.kernels): none missed."""
import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def read_setup_cfg():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    packages = {line.strip() for line in cfg["options"]["packages"].splitlines() if line.strip()}
    package_dir = {}
    for line in cfg["options"]["package_dir"].splitlines():
        if line.strip():
            name, _, folder = line.partition("=")
            package_dir[name.strip()] = folder.strip()
    return packages, package_dir


def packages_on_disk(package_dir):
    """Import name of every folder with an __init__.py under each package_dir root."""
    found = {}
    for root_name, folder in package_dir.items():
        base = ROOT / folder
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            if "__pycache__" in rel.parts:
                continue
            found[".".join((root_name,) + rel.parts)] = init.parent
    return found


def test_package_dir_maps_kernels_into_minispore():
    _, package_dir = read_setup_cfg()
    assert package_dir == {"minispore": "minispore", "minispore.kernels": "kernels"}


def test_every_package_folder_is_listed_in_setup_cfg():
    packages, package_dir = read_setup_cfg()
    on_disk = packages_on_disk(package_dir)
    # minispore/kernels would shadow the mapped kernels/ folder: it must not exist.
    assert not (ROOT / "minispore" / "kernels").exists()
    missing = sorted(set(on_disk) - packages)
    assert not missing, ("setup.cfg [options] packages misses "
                         + ", ".join(f"{name} ({on_disk[name].relative_to(ROOT)})"
                                     for name in missing))


def test_every_listed_package_exists():
    packages, package_dir = read_setup_cfg()
    stale = sorted(packages - set(packages_on_disk(package_dir)))
    assert not stale, f"setup.cfg lists packages with no folder/__init__.py: {stale}"


def test_folders_with_python_files_are_packages():
    """A folder of modules without __init__.py would be silently left out of the install."""
    _, package_dir = read_setup_cfg()
    loose = sorted(str(py.parent.relative_to(ROOT))
                   for folder in package_dir.values()
                   for py in (ROOT / folder).rglob("*.py")
                   if "__pycache__" not in py.parts and not (py.parent / "__init__.py").exists())
    assert not loose, f"folders with .py files but no __init__.py: {sorted(set(loose))}"


def test_every_layer_is_a_listed_package():
    """DESIGN.md's layers each install as a package (minispore/device moved out of common)."""
    packages, _ = read_setup_cfg()
    layers = {f"minispore.{name}" for name in ("kernels", "device", "common", "communication",
                                               "ops", "graph", "parallel", "nn", "train",
                                               "dataset")}
    assert layers <= packages, f"layers missing from setup.cfg: {sorted(layers - packages)}"
