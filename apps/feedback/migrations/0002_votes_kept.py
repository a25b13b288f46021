import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from apps.core.row_security import wall_sql

# Every vote learns its item's vault (read as the system: the table is walled, and a migration's role may be bound by
# it), and is walled by that vault from then on instead of through an item that may be gone.
VAULTS_FILLED = """
SELECT set_config('desirepath.system', 'votes learn their vault', true), set_config('desirepath.vaults', '*', true);
UPDATE chat_feedback f SET vault_id = i.vault_id FROM chat_contextitem i WHERE i.id = f.context_item_id;
"""


# Not undone (no reverse SQL): once a conversation, vault or voter is gone, its votes' links could not be
# constrained again.
class Migration(migrations.Migration):
    dependencies = [
        ("feedback", "0001_initial"),
        ("vaults", "0005_row_level_security"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="feedback",
            name="vault",
            field=models.ForeignKey(
                null=True,
                db_constraint=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="vaults.vault",
            ),
        ),
        migrations.RunSQL(VAULTS_FILLED, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name="feedback",
            name="vault",
            field=models.ForeignKey(
                db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="vaults.vault"
            ),
        ),
        migrations.AlterField(
            model_name="feedback",
            name="context_item",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="feedback",
                to="chat.contextitem",
            ),
        ),
        migrations.AlterField(
            model_name="feedback",
            name="user",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunSQL(wall_sql("chat_feedback")),
    ]
