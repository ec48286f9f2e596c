"""The end-of-night audit of a gaming day (tables/audit/README.md).

services.py asks for it, runs it and keeps it going (runner.py: its lock, heartbeat and
progress), compute/ computes the report section by section, report.py is its JSON shape
(schema.py derives the API's serializers from it), render_pdf.py / render_csv.py / charts.py /
files.py present it, tasks.py is the Celery entry point, views.py the auditors' HTML page.
"""
