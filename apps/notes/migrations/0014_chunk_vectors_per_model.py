import hashlib

import django.db.models.deletion
import pgtrigger.compiler
import pgtrigger.migrations
import pgvector.django.vector
from django.db import migrations, models


def index_models_present(apps, schema_editor):
    """One partial HNSW index per model found among the moved vectors (named as `apps/notes/vectors.py` names it)."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT model, min(vector_dims(embedding)) FROM notes_chunkvector GROUP BY model")
        for model, dims in cursor.fetchall():
            name = "chunkvector_hnsw_" + hashlib.sha1(model.encode(), usedforsecurity=False).hexdigest()[:12]
            cursor.execute(
                f"CREATE INDEX {name} ON notes_chunkvector USING hnsw ((embedding::vector({int(dims)})) "
                "vector_cosine_ops) WITH (m = 16, ef_construction = 64) WHERE (model || '') = %s",
                [model],
            )


class Migration(migrations.Migration):
    """Vectors move from a column of the chunk (one model, one size) to rows per chunk and model."""

    dependencies = [
        ("notes", "0013_notelink_lower_target_index"),
        ("vaults", "0002_chat_settings"),
    ]

    operations = [
        migrations.CreateModel(
            name="ChunkVector",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("model", models.CharField(max_length=200)),
                ("tier", models.CharField(choices=[("hot", "Hot"), ("cold", "Cold")], max_length=8)),
                ("embedding", pgvector.django.vector.VectorField()),
            ],
        ),
        migrations.AddField(
            model_name="chunkvector",
            name="chunk",
            field=models.ForeignKey(
                db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="vectors", to="notes.chunk"
            ),
        ),
        migrations.AddField(
            model_name="chunkvector",
            name="note",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="notes.note"
            ),
        ),
        migrations.AddField(
            model_name="chunkvector",
            name="vault",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="vaults.vault"
            ),
        ),
        migrations.RunSQL(
            "ALTER TABLE notes_chunkvector SET (toast_tuple_target = 8160)",
            migrations.RunSQL.noop,
        ),
        migrations.RunSQL(
            """
            INSERT INTO notes_chunkvector (chunk_id, model, vault_id, note_id, tier, embedding)
            SELECT id, embedding_model, vault_id, note_id, tier, embedding FROM notes_chunk
            WHERE embedding IS NOT NULL AND embedding_model <> ''
            """,
            migrations.RunSQL.noop,
        ),
        migrations.RunPython(index_models_present, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="chunkvector",
            index=models.Index(fields=["vault", "tier"], name="chunkvector_scope"),
        ),
        migrations.AddConstraint(
            model_name="chunkvector",
            constraint=models.UniqueConstraint(fields=("chunk", "model"), name="chunkvector_one_per_model"),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="chunkvector",
            trigger=pgtrigger.compiler.Trigger(
                name="chunkvector_place",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    func="\nSELECT c.vault_id, c.note_id, c.tier INTO NEW.vault_id, NEW.note_id, NEW.tier\nFROM notes_chunk c WHERE c.id = NEW.chunk_id;\nRETURN NEW;\n",
                    hash="cdf80451c4cc175555f54f19ac74b55f02f9b425",
                    operation="INSERT",
                    pgid="pgtrigger_chunkvector_place_42b22",
                    table="notes_chunkvector",
                    when="BEFORE",
                ),
            ),
        ),
        migrations.RemoveIndex(
            model_name="chunk",
            name="chunk_embedding_hnsw",
        ),
        migrations.RemoveField(
            model_name="chunk",
            name="embedding",
        ),
        migrations.RemoveField(
            model_name="chunk",
            name="embedding_model",
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="chunk",
            trigger=pgtrigger.compiler.Trigger(
                name="chunk_tier_to_vectors",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    condition="WHEN (OLD.tier IS DISTINCT FROM NEW.tier)",
                    func="\nUPDATE notes_chunkvector v SET tier = NEW.tier WHERE v.chunk_id = NEW.id;\nRETURN NULL;\n",
                    hash="700fb6851e79ad0c38a8646d6263f20fc6b3e897",
                    operation='UPDATE OF "tier"',
                    pgid="pgtrigger_chunk_tier_to_vectors_87aab",
                    table="notes_chunk",
                    when="AFTER",
                ),
            ),
        ),
    ]
