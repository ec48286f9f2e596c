"""The end-of-night audit of a gaming day (tables/audit/README.md).

services.py computes and runs it, report.py is the JSON shape, render_pdf.py / render_csv.py /
charts.py present it, tasks.py is the Celery entry point, views.py the auditors' HTML page.
"""
