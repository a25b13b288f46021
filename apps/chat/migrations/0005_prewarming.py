import django.contrib.postgres.fields
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    """The tables graph created for pre-warming, taken over as they are, then renamed for chat."""

    dependencies = [
        ("chat", "0004_contextitem_trace"),
        ("graph", "0007_prewarming_moves_to_chat"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="PrewarmedContext",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("vault_ids", django.contrib.postgres.fields.ArrayField(base_field=models.BigIntegerField(), size=None)),
                        ("key", models.CharField(max_length=64)),
                        ("threshold", models.PositiveSmallIntegerField()),
                        ("scoring", models.CharField(max_length=200)),
                        ("model", models.CharField(max_length=200)),
                        ("items", models.JSONField(default=list)),
                        ("notes", models.JSONField(default=list)),
                        ("ready_at", models.DateTimeField()),
                        ("expires_at", models.DateTimeField(db_index=True)),
                        ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "graph_prewarmedcontext",
                        "constraints": [models.UniqueConstraint(fields=("user", "vault_ids", "key"), name="graph_prewarmed_one_per_question")],
                    },
                ),
                migrations.CreateModel(
                    name="QuestionRhythm",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("vault_ids", django.contrib.postgres.fields.ArrayField(base_field=models.BigIntegerField(), size=None)),
                        ("key", models.CharField(max_length=64)),
                        ("text", models.TextField()),
                        ("day", models.DateField()),
                        ("hour", models.PositiveSmallIntegerField()),
                        ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "graph_questionrhythm",
                        "indexes": [models.Index(fields=["hour", "day"], name="graph_quest_hour_7c7340_idx")],
                        "constraints": [models.UniqueConstraint(fields=("user", "vault_ids", "key", "day", "hour"), name="graph_rhythm_one_a_day")],
                    },
                ),
            ],
            database_operations=[],
        ),

        migrations.RemoveConstraint(
            model_name='prewarmedcontext',
            name='graph_prewarmed_one_per_question',
        ),
        migrations.RemoveConstraint(
            model_name='questionrhythm',
            name='graph_rhythm_one_a_day',
        ),
        migrations.RenameIndex(
            model_name='questionrhythm',
            new_name='chat_questi_hour_9fb0fd_idx',
            old_name='graph_quest_hour_7c7340_idx',
        ),
        migrations.AddConstraint(
            model_name='prewarmedcontext',
            constraint=models.UniqueConstraint(fields=('user', 'vault_ids', 'key'), name='chat_prewarmed_one_per_question'),
        ),
        migrations.AddConstraint(
            model_name='questionrhythm',
            constraint=models.UniqueConstraint(fields=('user', 'vault_ids', 'key', 'day', 'hour'), name='chat_rhythm_one_a_day'),
        ),
        migrations.AlterModelTable(
            name='prewarmedcontext',
            table=None,
        ),
        migrations.AlterModelTable(
            name='questionrhythm',
            table=None,
        ),
    ]
