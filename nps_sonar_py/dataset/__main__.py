"""``python -m nps_sonar_py.dataset``: ``sonar_dataset`` without the ROS workspace."""

import sys

from nps_sonar_py.dataset.cli import main

sys.exit(main())
