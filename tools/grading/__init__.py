"""The gradebook: `make grade SUBMISSIONS=dir` runs every submitted notebook in a sandbox and
writes each student's verdicts, named mistakes included.

- ``sandbox``: one submission in its own confined run (``runner`` is what runs inside);
- ``verdicts``: what a run left, turned into one row;
- ``report``: the gradebook, the feedback pages and the summary;
- ``classroom``: a class's worth, in parallel, resumable, with a progress line.
"""
