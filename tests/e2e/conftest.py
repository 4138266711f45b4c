"""What the end-to-end tests share: a stack of a module's own and, for the browser tests, a
headless Chromium. A module that needs another stack (settings of its own) defines `stack`."""

import pytest

from tests.e2e import axe, chromium
from tests.e2e.stack import LocalStack


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    running = LocalStack(tmp_path_factory.mktemp("data")).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chromium.start(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def axe_script() -> str:
    return axe.script()
