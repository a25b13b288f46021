"""The knowledge graph of a vault: entities (with aspects and attributes), typed dependencies between them with
a strength, a confidence and the reason for it, mentions that tie entities to the chunks they appear in, Leiden
communities, learned path values, and the append-only ledger of every weight change.

Every row carries its own `vault_id`: the same name in two vaults is two entities, the permission filter works
in SQL, and feedback in one vault never moves another vault's weights. Nothing here is edited by hand: weights
change only through `apps.graph.learning`, which writes the ledger in the same transaction."""

from django.contrib.postgres.fields import ArrayField
from django.db import models
from pgvector.django import VectorField

from apps.core.triggers import append_only
from apps.notes.models import Chunk, Note
from apps.vaults.models import Vault

STRENGTH_MIN, STRENGTH_MAX = 0.05, 0.95  # never dead, never unweakenable


class EntityKind(models.TextChoices):
    NOTE = "note"  # a note's own subject (its title)
    PERSON = "person"  # a speaker or someone named as one
    THING = "thing"  # a named thing: project, place, product…
    TERM = "term"  # a key phrase
    TAG = "tag"
    PRINCIPLE = "principle"
    COMMUNITY = "community"
    CONCEPT = "concept"  # found by discovery from footsteps: a proposal, never a note


class Tier(models.TextChoices):
    HOT = "hot"
    COLD = "cold"


class Health(models.TextChoices):
    HEALTHY = "healthy"
    SICK = "sick"  # feedback through it is mostly down: demoted to the cold tier by the daily job
    UNDER_MAPPED = "under_mapped"  # mentioned often, barely connected: queued for enrichment


class Entity(models.Model):
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=300)
    key = models.CharField(max_length=300)  # normalised name: one entity per key and vault
    kind = models.CharField(max_length=16, choices=EntityKind.choices)
    tier = models.CharField(max_length=8, choices=Tier.choices, default=Tier.HOT)
    strength = models.FloatField(default=0.5)  # the node's weight: `not useful` weakens it
    created_at = models.DateTimeField(auto_now_add=True)
    # Written by the daily health job (`apps.graph.health`) from the feedback on units that came through it.
    health = models.CharField(max_length=16, choices=Health.choices, default=Health.HEALTHY)
    votes_up = models.PositiveIntegerField(default=0)
    votes_down = models.PositiveIntegerField(default=0)
    health_at = models.DateTimeField(null=True, blank=True)
    revived_at = models.DateTimeField(null=True, blank=True)  # a manager brought it back: older votes are spent

    class Meta:
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(fields=["vault", "key"], name="graph_entity_one_per_key"),
            models.CheckConstraint(
                condition=models.Q(strength__gte=STRENGTH_MIN, strength__lte=STRENGTH_MAX),
                name="graph_entity_strength_clamped",
            ),
        ]

    def __str__(self) -> str:
        # By id, not name: a name is the vault's words (a principle's statement, a filed question's phrase), and
        # this is what the admin shows wherever an entity is referred to.
        return f"{self.kind} {self.pk}"


class Aspect(models.Model):
    """A facet of an entity (a heading of its note, a frontmatter field)."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="aspects")
    name = models.CharField(max_length=300)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["entity", "name"], name="graph_aspect_unique")]

    def __str__(self) -> str:
        return self.name


class AttributeKind(models.TextChoices):
    FACT = "fact"
    CONSTRAINT = "constraint"  # always surfaces when its entity is walked


class Attribute(models.Model):
    """A fact about an entity, with the chunk it came from (its citation)."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="attributes")
    aspect = models.ForeignKey(Aspect, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=16, choices=AttributeKind.choices, default=AttributeKind.FACT)
    text = models.TextField()
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    chunk = models.ForeignKey(Chunk, null=True, on_delete=models.CASCADE, related_name="+")

    class Meta:
        indexes = [models.Index(fields=["vault", "entity"])]

    def __str__(self) -> str:
        return f"{self.kind}: {self.text[:60]}"


class Reason(models.TextChoices):
    """The confidence ladder: where an edge's evidence comes from."""

    USER_ASSERTED = "user-asserted"
    MULTI_MEMORY = "multi-memory"
    SINGLE_MEMORY = "single-memory"
    PATTERN_MATCHED = "pattern-matched"
    INFERRED = "inferred"
    LLM_UNCERTAIN = "llm-uncertain"


LADDER = {
    Reason.USER_ASSERTED: 1.0,
    Reason.MULTI_MEMORY: 0.9,
    Reason.SINGLE_MEMORY: 0.7,
    Reason.PATTERN_MATCHED: 0.5,
    Reason.INFERRED: 0.4,
    Reason.LLM_UNCERTAIN: 0.3,
}


class DependencyKind(models.TextChoices):
    LINKS_TO = "links_to"  # a wikilink a person wrote
    TAGGED = "tagged"
    CO_MENTIONED = "co_mentioned"  # named together in one chunk
    DEPENDS_ON = "depends_on"  # "X depends on / requires / uses Y"
    BRIDGE = "bridge"  # two entities not linked that carry the same fact
    MEMBER_OF = "member_of"  # entity → its Leiden community


class Dependency(models.Model):
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    source = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="outgoing")
    target = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="incoming")
    kind = models.CharField(max_length=16, choices=DependencyKind.choices)
    strength = models.FloatField(default=0.5)
    initial_strength = models.FloatField(default=0.5)  # strength = initial + the ledger's deltas
    confidence = models.FloatField()
    reason = models.CharField(max_length=20, choices=Reason.choices)
    evidence = models.PositiveIntegerField(default=1)  # notes that support it
    created_at = models.DateTimeField(auto_now_add=True)
    last_walked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "dependencies"
        constraints = [
            models.UniqueConstraint(fields=["vault", "source", "target", "kind"], name="graph_dependency_unique"),
            models.CheckConstraint(
                condition=models.Q(strength__gte=STRENGTH_MIN, strength__lte=STRENGTH_MAX),
                name="graph_dependency_strength_clamped",
            ),
        ]
        indexes = [models.Index(fields=["vault", "source"]), models.Index(fields=["vault", "target"])]

    def __str__(self) -> str:
        return f"{self.source_id} -{self.kind}-> {self.target_id}"


class Mention(models.Model):
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="mentions")
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="+")
    said = models.BooleanField(default=False, db_default=False)  # the entity speaks in this passage (a turn)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["entity", "chunk"], name="graph_mention_unique")]
        indexes = [models.Index(fields=["vault", "chunk"])]

    def __str__(self) -> str:
        return f"entity {self.entity_id} in chunk {self.chunk_id}"


class Reply(models.Model):
    """Conversation structure: a turn and the turn it answers (the one before it in the same note, or in the
    previous note of its folder when each turn is a note of its own). Both passages are in the same vault."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    chunk = models.OneToOneField(Chunk, on_delete=models.CASCADE, related_name="+")
    answers = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="+")

    class Meta:
        indexes = [models.Index(fields=["vault", "chunk"])]

    def __str__(self) -> str:
        return f"chunk {self.chunk_id} answers chunk {self.answers_id}"


class Extraction(models.Model):
    """What the extractor last did for a note: re-run only when the note or the extractor changed."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    note = models.OneToOneField(Note, on_delete=models.CASCADE, related_name="extraction")
    content_hash = models.CharField(max_length=64)
    model = models.CharField(max_length=200)
    level = models.CharField(max_length=16)  # normal | stricter | deterministic | skipped
    entities = models.PositiveIntegerField(default=0)
    written_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"note {self.note_id}: {self.level}, {self.entities} entities"


class CommunityRun(models.Model):
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    modularity = models.FloatField()  # with weights
    entities = models.PositiveIntegerField()
    edges = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"vault {self.vault_id}: modularity {self.modularity:.3f}"


class Community(models.Model):
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    run = models.ForeignKey(CommunityRun, on_delete=models.CASCADE, related_name="communities")
    entity = models.OneToOneField(Entity, on_delete=models.CASCADE, related_name="community")  # kind community
    name = models.CharField(max_length=300)
    cohesion = models.FloatField()  # share of its members' edge weight that stays inside
    size = models.PositiveIntegerField()

    class Meta:
        verbose_name_plural = "communities"

    def __str__(self) -> str:
        return self.name


class LearnedValue(models.Model):
    """How often walking this kind of step helped this kind of question in this vault: the Beta(1, 1) mean of
    the outcomes (see `apps.graph.learning`)."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    intent = models.CharField(max_length=16)
    value = models.FloatField(default=0.5)
    helped = models.FloatField(default=0.0)
    failed = models.FloatField(default=0.0)

    class Meta:
        abstract = True


class PathValue(LearnedValue):
    """The learned value of an edge, for an intent."""

    edge = models.ForeignKey(Dependency, on_delete=models.CASCADE, related_name="values")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["vault", "intent", "edge"], name="graph_path_value_unique")]

    def __str__(self) -> str:
        return f"{self.intent} edge {self.edge_id}: {self.value:.3f}"


class FactValue(LearnedValue):
    """The learned value of a path's last hop: a fact reached through this entity (a mention), for an intent."""

    mention = models.ForeignKey(Mention, on_delete=models.CASCADE, related_name="values")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["vault", "intent", "mention"], name="graph_fact_value_unique")]

    def __str__(self) -> str:
        return f"{self.intent} mention {self.mention_id}: {self.value:.3f}"


class DoorValue(LearnedValue):
    """A desire path from a door — the stem of a specific term of the question, one that few of the vault's
    passages carry — to the fact (chunk) it led to: how often that fact helped questions through that door that ask
    for the same kind of answer (`intent` holds the question word, `apps.core.text.asked_for`: keyed by the question
    word, desire paths learn more than keyed by intent or by nothing; docs/evaluation.md)."""

    door = models.CharField(max_length=100)
    # The fact: a passage of a note, by content, so what it learned survives the note being re-chunked or edited
    # elsewhere (a changed passage is a new fact).
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    content_hash = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["vault", "intent", "door", "note", "content_hash"], name="graph_door_value_unique"
            )
        ]
        indexes = [models.Index(fields=["vault", "note", "content_hash"])]

    def __str__(self) -> str:
        return f"door {self.door!r} → note {self.note_id} passage {self.content_hash[:8]}: {self.value:.3f}"


class RatedQuestion(models.Model):
    """A question whose answer someone rated, in one vault of its scope, with the vector search embedded it as:
    a later question near it in meaning inherits what its rated units taught (`QuestionValue`,
    `apps.graph.questions`). Nearest past questions are an exact scan of the vault's rows (a vault rates hundreds,
    not millions); the column has no fixed size, so each row names the model that embedded it. `stems` are the
    English stems of its words, as doors are stemmed, kept so that finding a question's twins (the rated questions
    sharing several of its doors) reads an array per row instead of stemming every rated question again."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    text = models.TextField()
    text_hash = models.CharField(max_length=64)
    model = models.CharField(max_length=200)
    embedding = VectorField()
    stems = ArrayField(models.TextField(), default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["vault", "model", "text_hash"], name="graph_rated_question_unique")
        ]

    def __str__(self) -> str:
        return f"rated question {self.pk}"  # its text is what someone asked


class QuestionValue(LearnedValue):
    """What a rated unit taught for the question it was shown for: the fact (a passage of a note, by content, as
    for `DoorValue`) helped or did not help that question. `intent` is "any"."""

    question = models.ForeignKey(RatedQuestion, on_delete=models.CASCADE, related_name="values")
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    content_hash = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["vault", "intent", "question", "note", "content_hash"], name="graph_question_value_unique"
            )
        ]
        indexes = [models.Index(fields=["vault", "note", "content_hash"])]

    def __str__(self) -> str:
        return f"question {self.question_id} → note {self.note_id} passage {self.content_hash[:8]}: {self.value:.3f}"


class RhythmValue(LearnedValue):
    """The learned value of an edge at a time: an hour of the day (`slot` "h00"–"h23") or a day of the week ("d1"
    Monday – "d7" Sunday), in the deployment's time zone. Learns across intents (`intent` is "any") from the same
    signals as `PathValue`; the walk multiplies a path's learned value by its odds at the current hour and weekday
    (`apps.graph.rhythm`)."""

    edge = models.ForeignKey(Dependency, on_delete=models.CASCADE, related_name="rhythm")
    slot = models.CharField(max_length=3)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["vault", "intent", "edge", "slot"], name="graph_rhythm_value_unique")
        ]

    def __str__(self) -> str:
        return f"edge {self.edge_id} at {self.slot}: {self.value:.3f}"


class TermCount(models.Model):
    """How many of a vault's live passages carry a term, for the terms few enough carry to be doors
    (`apps.graph.doors`); the row with the empty term holds the vault's passage count. Rewritten by the worker after
    each extraction run."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    term = models.CharField(max_length=100, blank=True)
    passages = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["vault", "term"], name="graph_term_count_unique")]

    def __str__(self) -> str:
        return f"{self.term or '(all)'}: {self.passages}"


class LedgerSource(models.TextChoices):
    FEEDBACK = "feedback"  # a person's deliberate signal
    AUTOMATIC = "automatic"  # co-occurrence, later searches
    DECAY = "decay"  # paths not walked fade
    SYSTEM = "system"  # promotion and the like


class WeightChange(models.Model):
    """Append-only: PostgreSQL refuses UPDATE, DELETE and TRUNCATE on this table."""

    vault_id = models.BigIntegerField(db_index=True)  # no FK: the ledger outlives what it mentions
    source = models.CharField(max_length=16, choices=LedgerSource.choices)
    target = models.CharField(max_length=24)  # edge_strength | edge_confidence | entity_strength | *_value
    target_id = models.BigIntegerField()
    intent = models.CharField(max_length=16, blank=True)  # for path values
    old = models.FloatField()
    new = models.FloatField()
    delta = models.FloatField()
    reason = models.CharField(max_length=300)
    feedback_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["target", "target_id"])]
        triggers = append_only("ledger", "the weight ledger")

    def __str__(self) -> str:
        return f"{self.target} {self.target_id}: {self.old:.5f} → {self.new:.5f} ({self.source})"
