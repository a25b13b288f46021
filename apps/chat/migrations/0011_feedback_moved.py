from django.db import migrations


# The votes moved to the feedback app, which now owns the same table (`chat_feedback`): chat forgets the model
# without dropping anything.
class Migration(migrations.Migration):

    dependencies = [
        ('chat', '0010_feedback_choices'),
        ('feedback', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='Feedback')],
            database_operations=[],
        ),
    ]
