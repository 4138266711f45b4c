"""What `make run-regions` tells the other commands of this machine: `DATA_DIR/regions.json`,
written by its supervisor (`regions.py`) at start and at each switch of the serving region,
read by `make admin` and `make bootstrap` so that they act on the serving region as they act
on `make run`'s stack. Nothing here imports the app or the SDK: the admin CLI reads it before
the emulator's endpoint is set."""

import json
import os
from pathlib import Path

FILE = "regions.json"


def path() -> Path:
    # Once `use_serving_region` moved DATA_DIR to the serving region's, the file is where it
    # was found.
    found = os.environ.get("REGIONS_STATE")
    return Path(found) if found else Path(os.environ.get("DATA_DIR", ".data")).resolve() / FILE


def read() -> dict | None:
    """The running supervisor's state; None when no `make run-regions` runs on `DATA_DIR`."""
    try:
        state = json.loads(path().read_text())
        os.kill(state["pid"], 0)
    except (OSError, ValueError, KeyError):
        return None
    return state


def write(state: dict) -> None:
    target = path()
    written = target.with_suffix(".json.new")
    written.write_text(json.dumps(state, indent=1))
    os.replace(written, target)  # a reader sees the old state or the new, never half


def region(state: dict, name: str) -> dict:
    for each in state["regions"]:
        if each["name"] == name:
            return each
    names = ", ".join(each["name"] for each in state["regions"])
    raise SystemExit(f"error: no region {name} (the regions are {names})")


def use_serving_region() -> None:
    """Point this process at the serving region's emulator and folders, when `make
    run-regions` runs on `DATA_DIR`; nothing otherwise."""
    state = read()
    if state is None:
        return
    serving = region(state, state["serving"])
    os.environ["REGIONS_STATE"] = str(path())
    os.environ["MOTO_PORT"] = str(serving["moto_port"])
    os.environ["DATA_DIR"] = serving["data_dir"]
    os.environ["SITE_DIR"] = serving["site_dir"]
    os.environ.pop("AWS_ENDPOINT_URL", None)  # the serving region's, from MOTO_PORT
