from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def small_toml() -> Path:
    return DATA / "small_incast.toml"
