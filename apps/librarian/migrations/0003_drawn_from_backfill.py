"""What the Librarian already filed, summarised or published records the vaults it carries (`Note.drawn_from`)."""

from django.db import migrations


def _vault_of(entry):
    head = str(entry).split(":", 1)[0]
    return int(head) if head.isdigit() else None


def _from_messages(ContextItem, Note, message_ids):
    vaults, notes = set(), set()
    items = ContextItem.objects.filter(message_id__in=message_ids, survived=True, speculative=False)
    for vault_id, note_id, sources in items.values_list("vault_id", "note_id", "sources"):
        vaults.add(vault_id)
        if note_id is not None:
            notes.add(note_id)
        for source in sources or []:
            if isinstance(source, dict) and isinstance(source.get("vault"), int):
                vaults.add(source["vault"])
    for carried in Note.objects.filter(pk__in=notes).values_list("drawn_from", flat=True):
        vaults.update(carried or [])
    return vaults


def backfill(apps, schema_editor):
    Note = apps.get_model("notes", "Note")
    ContextItem = apps.get_model("chat", "ContextItem")
    SummaryNode = apps.get_model("librarian", "SummaryNode")
    AuditEvent = apps.get_model("audit", "AuditEvent")

    def keep(note, vaults):
        drawn = sorted({v for v in vaults if v is not None} - {note.vault_id})
        if drawn != sorted(note.drawn_from or []):
            Note.objects.filter(pk=note.pk).update(drawn_from=drawn)
            note.drawn_from = drawn

    # filed exchanges name what they drew on as `vault:path`, or by title with the conversation they came from (then
    # every vault that conversation's answers drew on counts: more may be withheld, never less)
    Message = apps.get_model("chat", "Message")
    for note in Note.objects.filter(source="librarian").iterator():
        matter = note.frontmatter or {}
        drew_on = matter.get("drew_on")
        if not isinstance(drew_on, list) or not drew_on:
            continue
        vaults = {_vault_of(entry) for entry in drew_on} - {None}
        if not vaults and str(matter.get("conversation", "")).isdigit():
            messages = Message.objects.filter(conversation_id=int(matter["conversation"])).values_list("pk", flat=True)
            vaults = _from_messages(ContextItem, Note, list(messages))
        keep(note, vaults)
    # summaries: a conversation's carries what its answers drew on, a period's what its parts carry
    for level in range(0, 3):
        for node in SummaryNode.objects.filter(level=level).select_related("note").order_by("pk"):
            if level == 0:
                messages = list(node.message_links.values_list("message_id", flat=True))
                vaults = _from_messages(ContextItem, Note, messages)
            else:
                children = Note.objects.filter(summary_node__parent_links__parent=node)
                vaults = {v for drawn in children.values_list("drawn_from", flat=True) for v in drawn or []}
            keep(node.note, vaults)
    # copies published from a summary carry what it carries
    for event in AuditEvent.objects.filter(action="note.publish").order_by("id"):
        original = Note.objects.filter(pk=(event.changes or {}).get("from_note")).first()
        copy = Note.objects.filter(pk=int(event.object_id)).first() if str(event.object_id).isdigit() else None
        if original is not None and copy is not None and original.drawn_from:
            keep(copy, set(original.drawn_from) | set(copy.drawn_from or []))


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0001_initial"),
        ("chat", "0007_recovery"),
        ("librarian", "0002_summary_dag"),
        ("notes", "0016_note_drawn_from"),
    ]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
