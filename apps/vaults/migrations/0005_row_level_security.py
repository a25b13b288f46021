"""Row-level security on every table that carries a vault: the second wall behind the application's own filters.

Two policies per table, keyed on settings the application binds per request or job (`apps.core.row_security`):
`scope_vaults`, the rows of the vaults listed in `desirepath.vaults` (a requester's readable vaults, or a system
job's own), and `system_all_vaults`, every row, only for a system binding (`desirepath.system` says why) that asks
for `*`. With nothing set, nothing is visible and nothing can be written. FORCE binds the tables' owner too, unless
it is a superuser (migrations).
"""

from django.db import migrations

FUNCTIONS = """
CREATE OR REPLACE FUNCTION desirepath_scope_vaults() RETURNS bigint[] LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN coalesce(current_setting('desirepath.vaults', true), '') NOT IN ('', '*')
         THEN string_to_array(current_setting('desirepath.vaults', true), ',')::bigint[]
         ELSE '{}'::bigint[] END
$$;
CREATE OR REPLACE FUNCTION desirepath_system_all() RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(current_setting('desirepath.system', true), '') <> ''
     AND coalesce(current_setting('desirepath.vaults', true), '') = '*'
$$;
"""

DROP_FUNCTIONS = """
DROP FUNCTION IF EXISTS desirepath_scope_vaults();
DROP FUNCTION IF EXISTS desirepath_system_all();
"""

# Tables whose rows belong to a vault; those where the vault may be empty (an account's own events and model calls)
# show such rows to every binding: they are no vault's.
VAULT_TABLES = [
    "vaults_teamgrant",
    "notes_note",
    "notes_notelink",
    "notes_chunk",
    "notes_chunkvector",
    "notes_chunkterm",
    "notes_vaultterm",
    "notes_vaulttext",
    "notes_correction",
    "notes_importjob",
    "notes_importfileresult",
    "notes_notestepfailure",
    "notes_attachmentblob",
    "notes_attachment",
    "notes_exportjob",
    "llm_modelusage",
    "audit_auditevent",
    "chat_contextitem",
    "librarian_notemetadata",
    "librarian_summarynode",
    "librarian_summarylink",
    "librarian_summarymessage",
    "graph_entity",
    "graph_aspect",
    "graph_attribute",
    "graph_dependency",
    "graph_mention",
    "graph_reply",
    "graph_extraction",
    "graph_communityrun",
    "graph_community",
    "graph_pathvalue",
    "graph_factvalue",
    "graph_doorvalue",
    "graph_ratedquestion",
    "graph_questionvalue",
    "graph_rhythmvalue",
    "graph_termcount",
    "graph_weightchange",
    "insights_principle",
    "insights_evidence",
    "insights_answer",
    "insights_notification",
    "insights_footstep",
    "insights_noveltycandidate",
    "insights_concept",
    "insights_conceptmember",
    "insights_screening",
    "insights_collision",
    "insights_card",
    "insights_cardanswer",
    "insights_blend",
]
NULLABLE_VAULT = {"llm_modelusage", "audit_auditevent"}
# A table whose rows name their vaults in an array: every one of them must be in the binding.
VAULT_ARRAY_TABLES = {"chat_prewarmedcontext": "vault_ids <@ (SELECT desirepath_scope_vaults())"}
# Tables without a vault of their own, reachable only through a row that has one.
THROUGH = {"chat_feedback": "EXISTS (SELECT 1 FROM chat_contextitem i WHERE i.id = context_item_id)"}

# Each setting is read once per statement (a sub-select), not once per row.
LISTED = "vault_id = ANY ((SELECT desirepath_scope_vaults())::bigint[])"
SYSTEM_ALL = "(SELECT desirepath_system_all())"


def _policies(table: str, listed: str, system_all: str) -> str:
    return f"""
ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
CREATE POLICY scope_vaults ON {table} USING ({listed}) WITH CHECK ({listed});
CREATE POLICY system_all_vaults ON {table} USING ({system_all}) WITH CHECK ({system_all});
"""


def _undo(table: str) -> str:
    return f"""
DROP POLICY IF EXISTS scope_vaults ON {table};
DROP POLICY IF EXISTS system_all_vaults ON {table};
ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY;
ALTER TABLE {table} DISABLE ROW LEVEL SECURITY;
"""


def _forward() -> str:
    statements = [FUNCTIONS]
    for table in VAULT_TABLES:
        listed = f"vault_id IS NULL OR {LISTED}" if table in NULLABLE_VAULT else LISTED
        statements.append(_policies(table, listed, SYSTEM_ALL))
    for table, listed in VAULT_ARRAY_TABLES.items():
        statements.append(_policies(table, listed, SYSTEM_ALL))
    for table, through in THROUGH.items():
        statements.append(_policies(table, through, through))
    return "\n".join(statements)


def _backward() -> str:
    return "\n".join([_undo(t) for t in [*VAULT_TABLES, *VAULT_ARRAY_TABLES, *THROUGH]] + [DROP_FUNCTIONS])


class Migration(migrations.Migration):
    dependencies = [
        ("vaults", "0004_archived_at"),
        ("notes", "0018_vector_index_functions"),
        ("llm", "0005_usage_latest_indexes"),
        ("audit", "0001_initial"),
        ("chat", "0011_feedback_moved"),
        ("librarian", "0004_summary_outlives_its_conversation"),
        ("graph", "0009_entity_kind_concept"),
        ("insights", "0004_collisions_cards"),
        ("feedback", "0001_initial"),
    ]

    operations = [migrations.RunSQL(_forward(), _backward())]
