"""Evidence on the floor: the chain heads and checkpoints, and a hash on every record as written.

Round actions, slips, slip signatures, corrections and the action log are each hashed by a
BEFORE INSERT trigger, in the INSERT that writes them (no statement of the application's and no
round trip is added). The trigger names the record's stream (``table:<id>`` for what happens at
a table, ``slips:<kind>`` for a slip with no table, ``staff:<id>`` or ``system`` for the action
log, after who acted) and makes it the stream's next link: one UPDATE of the stream's
``tables_evidencechain`` row locks it, hashes the record's canonical array (docs/evidence.md)
with its place and the previous head, and moves the head. The writer already holds the lock
that orders the stream (every write at a table locks the table's row first), so that row lock
waits for nobody and no lock is global; it is the last lock the statement takes.

The four evidence columns on each of those tables are the database's own, like the ledger's
(ledger/0011): written only by the triggers, read only by the export's SQL, so no model lists
them. ``(evidence_stream, evidence_seq)`` is unique: a chain cannot fork. Only the fields a
record can never change are hashed (a slip's frozen fields, a correction's request): what
happens to it later is a record of its own (a signature, an action-log entry).
"""

import django.db.models.deletion
from django.db import migrations, models

# table, record type, the stream (an SQL expression of NEW), the fields (FIELDS in ledger/evidence/records.py).
RECORDS = [
    (
        "tables_roundaction",
        "round_action",
        "(SELECT 'table:' || r.table_id FROM tables_round AS r WHERE r.id = NEW.round_id)",
        "NEW.round_id, NEW.seq, NEW.payload, NEW.actor_id, evidence_time(NEW.at), NEW.transfer_id",
    ),
    (
        "tables_slip",
        "slip",
        "coalesce('table:' || NEW.table_id, 'slips:' || NEW.kind)",
        "NEW.kind, NEW.year, NEW.serial, NEW.number, NEW.table_id, NEW.session_id, "
        "to_char(NEW.gaming_day, 'YYYY-MM-DD'), NEW.reason, NEW.count, NEW.amount, NEW.expected, "
        "NEW.variance, NEW.requested_by_id, evidence_time(NEW.at)",
    ),
    (
        "tables_slipsignature",
        "slip_signature",
        "(SELECT coalesce('table:' || s.table_id, 'slips:' || s.kind) FROM tables_slip AS s WHERE s.id = NEW.slip_id)",
        "NEW.slip_id, NEW.user_id, NEW.role, evidence_time(NEW.at), NEW.note",
    ),
    (
        "tables_correction",
        "correction",
        "(SELECT 'table:' || r.table_id FROM tables_round AS r WHERE r.id = NEW.round_id)",
        "NEW.round_id, NEW.void, NEW.from_seq, NEW.at_version, NEW.reason, NEW.requested_by_id, "
        "evidence_time(NEW.requested_at)",
    ),
    (
        "casino_auditlog",
        "action_log",
        "coalesce('staff:' || NEW.actor_id, 'system')",
        "evidence_time(NEW.at), NEW.actor_id, NEW.action, NEW.object_type, NEW.object_id, NEW.data, "
        "NEW.request_id, host(NEW.remote_addr)",
    ),
]


def _hashed(table: str, kind: str, stream: str, fields: str) -> tuple[str, str]:
    """The evidence columns of ``table`` and the trigger that fills them. One UPDATE of the
    stream's chain row takes its lock, moves its head and hands back the link before it (in SET,
    ``links`` and ``head`` are the row's values before the UPDATE); a stream's first record makes
    its row first."""
    forward = f"""
ALTER TABLE {table} ADD COLUMN evidence_stream text, ADD COLUMN evidence_seq bigint,
                    ADD COLUMN evidence_previous bytea, ADD COLUMN evidence_hash bytea;
CREATE UNIQUE INDEX {table}_evidence_place ON {table} (evidence_stream, evidence_seq);
CREATE FUNCTION {table}_evidence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_fields jsonb := jsonb_build_array({fields});
    attempt integer;
BEGIN
    FOR attempt IN 1..2 LOOP
        UPDATE tables_evidencechain AS c
           SET links = c.links + 1,
               previous = c.head,
               head = sha256(convert_to((jsonb_build_array('ck1', '{kind}', NEW.id, c.stream, c.links + 1,
                                                           encode(c.head, 'hex')) || v_fields)::text, 'UTF8'))
         WHERE c.stream = {stream}
        RETURNING c.stream, c.links, c.previous, c.head
             INTO NEW.evidence_stream, NEW.evidence_seq, NEW.evidence_previous, NEW.evidence_hash;
        EXIT WHEN FOUND;
        INSERT INTO tables_evidencechain (stream, links) VALUES ({stream}, 0) ON CONFLICT (stream) DO NOTHING;
    END LOOP;
    RETURN NEW;
END;
$$;
CREATE TRIGGER {table}_evidence BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION {table}_evidence();
"""
    backward = f"""
DROP TRIGGER {table}_evidence ON {table};
DROP FUNCTION {table}_evidence();
ALTER TABLE {table} DROP COLUMN evidence_stream, DROP COLUMN evidence_seq,
                    DROP COLUMN evidence_previous, DROP COLUMN evidence_hash;
"""
    return forward, backward


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0015_signature_says_if_password_confirmed"),
        ("casino", "0007_sandbox"),
        ("ledger", "0012_evidence_hashes"),
    ]

    operations = [
        migrations.CreateModel(
            name="EvidenceChain",
            fields=[
                ("stream", models.CharField(max_length=100, primary_key=True, serialize=False)),
                ("links", models.BigIntegerField(default=0)),
                ("previous", models.BinaryField(help_text="the hash of the link before the head", null=True)),
                ("head", models.BinaryField(null=True)),
            ],
        ),
        migrations.CreateModel(
            name="EvidenceMark",
            fields=[
                ("stream", models.CharField(max_length=100, primary_key=True, serialize=False)),
                ("seq", models.BigIntegerField()),
                ("head", models.CharField(help_text="the hash of link #seq, in hex", max_length=64)),
            ],
        ),
        migrations.CreateModel(
            name="Checkpoint",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("gaming_day", models.DateField(unique=True)),
                ("records", models.PositiveIntegerField()),
                ("root", models.CharField(max_length=64)),
                ("previous_root", models.CharField(blank=True, max_length=64)),
                ("key_id", models.CharField(max_length=32)),
                ("at", models.DateTimeField()),
                ("document", models.JSONField()),
                (
                    "previous",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="next",
                        to="tables.checkpoint",
                    ),
                ),
            ],
            options={
                "ordering": ["-gaming_day"],
            },
        ),
        *(migrations.RunSQL(*_hashed(*record)) for record in RECORDS),
    ]
