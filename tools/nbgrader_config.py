"""nbgrader's configuration for the course's student edition; `make student` copies it, with
student_edition.py, into student/.

nbgrader's own ``generate_assignment`` would replace every exercise cell by
``raise NotImplementedError()`` (its ClearSolutions, as an exercise cell has no
``### BEGIN SOLUTION`` region: the solution is in the markdown cell after the check), leave
those solution cells in, and clear every output (figures, explorers). Here its step list
keeps nbgrader's bookkeeping (cell locks, checksums, the gradebook's record of every cell)
and puts the student edition's own release step in place of those two, so that
``nbgrader generate_assignment NN_name`` turns source/NN_name into the same notebook as
release/NN_name, checksums added. attnlib must be importable where nbgrader runs.
"""

import sys
from pathlib import Path

from nbgrader.preprocessors import (
    CheckCellMetadata,
    ComputeChecksums,
    IncludeHeaderFooter,
    LockCells,
    SaveCells,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from student_edition import nbgrader_step  # noqa: E402

c = get_config()  # noqa: F821 (nbgrader defines it when it reads this file)
c.GenerateAssignment.preprocessors = [
    IncludeHeaderFooter,
    nbgrader_step,
    LockCells,
    CheckCellMetadata,
    ComputeChecksums,
    SaveCells,
    ComputeChecksums,
    CheckCellMetadata,
]
