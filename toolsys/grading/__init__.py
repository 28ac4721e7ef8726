"""Grade student exercise notebooks: sandboxed kernels, checked verdicts, an escaped gradebook.

Why: `toolsys check submissions/` must give an instructor one table and a gradebook they can
trust, whatever a submission does. The pieces, each in its own module:

- `submissions`: which notebooks, whose, and reading one safely;
- `_sandbox` and `_jail`: each submission runs on its own copy in its own temp folder, with a
  scrubbed environment, resource limits and, when the grader is root, as a user of its own in
  its own namespaces and file system; every process it started is killed when its grading ends;
- `_kernel`: the kernel (started with a generous timeout and one noted retry) and nbclient;
- `_verdicts`: the verdict log, every line validated and signed with a per-notebook key;
- `grades`: one notebook's grade, never raising; `hidden`: the instructor's hidden cases;
  `scores`: points; `gradebook`: the table, CSV and Markdown; `feedback`: a page per student;
  `lms`: Canvas and Moodle CSVs; `gradescope`: the Gradescope autograder.

What grading can and cannot guarantee is in the README ("For instructors").
"""

from toolsys.grading._kernel import execute
from toolsys.grading._sandbox import Isolation, isolation
from toolsys.grading.gradebook import table, write_gradebook
from toolsys.grading.grades import DEFAULT_TIMEOUT, NotebookGrade, grade, grade_notebook
from toolsys.grading.submissions import Submission, UsageError, find_notebooks

__all__ = [
    "DEFAULT_TIMEOUT",
    "Isolation",
    "NotebookGrade",
    "Submission",
    "UsageError",
    "execute",
    "find_notebooks",
    "grade",
    "grade_notebook",
    "isolation",
    "table",
    "write_gradebook",
]
