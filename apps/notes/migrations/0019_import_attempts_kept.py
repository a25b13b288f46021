import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notes", "0018_vector_index_functions"),
        ("vaults", "0005_row_level_security"),
    ]

    operations = [
        migrations.AddField(
            model_name="importfileresult",
            name="attempt",
            field=models.PositiveSmallIntegerField(default=1),
        ),
        migrations.AddField(
            model_name="importjob",
            name="attempt",
            field=models.PositiveSmallIntegerField(default=1),
        ),
        migrations.AlterField(
            model_name="importfileresult",
            name="vault",
            field=models.ForeignKey(
                db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="vaults.vault"
            ),
        ),
        migrations.AlterField(
            model_name="importjob",
            name="vault",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="import_jobs",
                to="vaults.vault",
            ),
        ),
    ]
