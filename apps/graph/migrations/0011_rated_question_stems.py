import django.contrib.postgres.fields
from django.db import migrations, models

# The stems of every rated question's words, as doors are stemmed (`apps.graph.questions.STEMS`).
BACKFILL = """
UPDATE graph_ratedquestion SET stems = ARRAY(
    SELECT DISTINCT t.stem FROM (
        SELECT (ts_lexize('english_stem', w))[1] AS stem FROM regexp_split_to_table(lower(text), '[^a-z0-9''-]+') AS w
    ) AS t
    WHERE t.stem IS NOT NULL ORDER BY t.stem
)
"""


class Migration(migrations.Migration):
    dependencies = [
        ("graph", "0010_plural_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="ratedquestion",
            name="stems",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.TextField(), blank=True, default=list, size=None
            ),
        ),
        migrations.RunSQL(BACKFILL, reverse_sql=migrations.RunSQL.noop),
    ]
