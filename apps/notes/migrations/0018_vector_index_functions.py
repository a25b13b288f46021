from django.db import migrations

# The application's role owns no table, so it cannot build or drop an index itself: these functions do it as their
# owner (the role migrations run as), for the per-model HNSW indexes of apps/notes/vectors.py and nothing else.
FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION desirepath_vector_index_build(index_name text, dimensions integer, model text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF index_name !~ '^chunkvector_hnsw_[0-9a-f]{12}$' OR dimensions NOT BETWEEN 1 AND 16000 THEN
        RAISE EXCEPTION 'not a vector index: % (% dimensions)', index_name, dimensions;
    END IF;
    EXECUTE format(
        'CREATE INDEX IF NOT EXISTS %I ON notes_chunkvector USING hnsw ((embedding::vector(%s)) vector_cosine_ops)'
        ' WITH (m = 16, ef_construction = 64) WHERE (model || '''') = %L',
        index_name, dimensions, model
    );
END $$;

CREATE OR REPLACE FUNCTION desirepath_vector_index_drop(index_name text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF index_name !~ '^chunkvector_hnsw_[0-9a-f]{12}$' THEN
        RAISE EXCEPTION 'not a vector index: %', index_name;
    END IF;
    EXECUTE format('DROP INDEX IF EXISTS %I', index_name);
END $$;

REVOKE ALL ON FUNCTION desirepath_vector_index_build(text, integer, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION desirepath_vector_index_drop(text) FROM PUBLIC;
"""

DROP = """
DROP FUNCTION IF EXISTS desirepath_vector_index_build(text, integer, text);
DROP FUNCTION IF EXISTS desirepath_vector_index_drop(text);
"""


class Migration(migrations.Migration):
    dependencies = [("notes", "0017_feedback_choices")]

    operations = [migrations.RunSQL(FUNCTIONS, DROP)]
