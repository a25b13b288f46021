from django.db import migrations

# A context item names the chunk and the note it was read from, and keeps the passage's text itself. A note
# re-chunked (or purged) while an answer is being written deletes rows the answer is about to reference, in
# another transaction Django's own SET_NULL cannot see; PostgreSQL clears the reference instead, whichever
# transaction commits first.
_REFERENCES = (("chunk_id", "notes_chunk"), ("note_id", "notes_note"))


def _replace(on_delete: str) -> str:
    statements = []
    for column, table in _REFERENCES:
        statements.append(
            f"""
            DO $$
            DECLARE name text;
            BEGIN
                SELECT c.conname INTO name FROM pg_constraint c
                JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
                WHERE c.conrelid = 'chat_contextitem'::regclass AND c.contype = 'f' AND a.attname = '{column}';
                EXECUTE format('ALTER TABLE chat_contextitem DROP CONSTRAINT %I', name);
                EXECUTE format(
                    'ALTER TABLE chat_contextitem ADD CONSTRAINT %I FOREIGN KEY ({column}) REFERENCES {table} (id)'
                    ' ON DELETE {on_delete} DEFERRABLE INITIALLY DEFERRED',
                    name
                );
            END $$;
            """
        )
    return "\n".join(statements)


class Migration(migrations.Migration):
    dependencies = [("chat", "0005_prewarming"), ("notes", "0001_initial")]

    operations = [migrations.RunSQL(_replace("SET NULL"), reverse_sql=_replace("NO ACTION"))]
