"""The deliverables: the report in Markdown (and later HTML and Word), the workbook, figures, the notebook, the bundle.

Plotting and document libraries are imported inside the functions that use them, never at module import.
"""
