"""Build hook (everything else is in pyproject.toml): a wheel also carries the reference apps
`apps/hr` and `apps/workforce_scoring`, as data under `engine/demo_apps/`, so an installed fw can
create a site with them (`fw init PATH --with-demo-apps`). An editable install reads them from the
checkout's `apps/` instead."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DEMO_APPS = ("hr", "workforce_scoring")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules", ".pytest_cache")


class BuildPyWithDemoApps(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for app in DEMO_APPS:
            shutil.copytree(Path("apps") / app, Path(self.build_lib) / "engine" / "demo_apps" / app,
                            ignore=IGNORED, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildPyWithDemoApps})
