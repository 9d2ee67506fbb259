"""The gradebook: `make grade SUBMISSIONS=dir` runs every submitted notebook in a sandbox and
writes each student's verdicts, named mistakes included.

- ``sandbox``: one notebook's bytes run in a bubblewrap sandbox of its own, with limits for
  the run as a whole (``runner`` is what runs inside);
- ``verdicts``: what a run left, turned into one row;
- ``report``: the gradebook, the feedback pages and the summary;
- ``classroom``: a class's worth (or one shard of it, then a merge), in parallel, resumable,
  with a progress line.
"""
