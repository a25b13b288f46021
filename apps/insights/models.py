"""Discovered principles and the notifications that ask people about them (DESIGN, "Learning").

A principle is a `principle` entity of the graph with a statement, the evidence trail it was found in (sentences of
unrelated notes) and the people's verdict: proposed until someone answers; confirmed (its edges are walked),
refined (corrected: the statement replaced, the old ones kept) or rejected (it fades to the cold tier, nothing
deleted, never proposed again). Every row carries its own `vault_id`."""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models

from apps.graph.models import Entity
from apps.notes.models import Chunk, Note, Provenance
from apps.vaults.models import Vault


class PrincipleStatus(models.TextChoices):
    PROPOSED = "proposed"
    CONFIRMED = "confirmed"
    REFINED = "refined"
    REJECTED = "rejected"


class Principle(models.Model):
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    entity = models.OneToOneField(Entity, on_delete=models.CASCADE, related_name="principle")
    signature = models.CharField(max_length=300)  # the shared terms that make the pattern: found once per vault
    statement = models.TextField()
    previous = models.JSONField(default=list, blank=True)  # earlier statements, oldest first
    status = models.CharField(max_length=16, choices=PrincipleStatus.choices, default=PrincipleStatus.PROPOSED)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["vault", "signature"], name="insights_principle_once")]

    def __str__(self) -> str:
        return f"principle {self.pk} ({self.status})"  # its statement is the vault's words


class Evidence(models.Model):
    """One sentence the pattern was seen in, with its note, passage and the note's entity."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    principle = models.ForeignKey(Principle, on_delete=models.CASCADE, related_name="evidence")
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    chunk = models.ForeignKey(Chunk, null=True, on_delete=models.SET_NULL, related_name="+")
    entity = models.ForeignKey(Entity, null=True, on_delete=models.SET_NULL, related_name="+")
    sentence = models.TextField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"evidence {self.pk} of principle {self.principle_id}"


class Answer(models.Model):
    """A person's answer to a principle: one per person, principle and signal."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    principle = models.ForeignKey(Principle, on_delete=models.CASCADE, related_name="answers")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    signal = models.CharField(max_length=16)
    text = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["principle", "user", "signal"], name="insights_one_answer")]

    def __str__(self) -> str:
        return f"{self.signal} on principle {self.principle_id}"


class Notification(models.Model):
    """ "DesirePath noticed something": shown to each reader of the vault until they open or answer it."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    principle = models.ForeignKey(Principle, null=True, on_delete=models.CASCADE, related_name="notifications")
    title = models.CharField(max_length=200)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "read_at"])]

    def __str__(self) -> str:
        return f"notification {self.pk} for {self.user_id}"


class FootstepOrigin(models.TextChoices):
    QUESTION = "question"  # pulled into an answer: a context item that passed the gate
    LINK = "link"  # a note began to link to it


class Footstep(models.Model):
    """A visit to a note, the raw material of discovery: when, by whom, and from where (the answer's message for a
    question, the linking note for a link). Counts only: no question text is kept here."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    origin = models.CharField(max_length=8, choices=FootstepOrigin.choices)
    message_id = models.BigIntegerField(null=True, blank=True)  # no FK: a footstep outlives a deleted conversation
    from_note = models.ForeignKey(Note, null=True, blank=True, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["vault", "at"]), models.Index(fields=["note", "at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["note", "message_id"], condition=models.Q(origin="question"), name="footstep_one_per_answer"
            ),
            models.UniqueConstraint(
                fields=["note", "from_note"], condition=models.Q(origin="link"), name="footstep_one_per_link"
            ),
            models.CheckConstraint(
                condition=models.Q(origin="question", message_id__isnull=False, from_note=None)
                | models.Q(origin="link", message_id=None, from_note__isnull=False),
                name="footstep_origin_named",
            ),
        ]

    def __str__(self) -> str:
        return f"footstep on note {self.note_id} ({self.origin}, {self.at:%Y-%m-%d})"


class NoveltyCandidate(models.Model):
    """A note whose footsteps stood out on one day: its novelty score with the three parts it is made of, and the
    vault's bar that day (mean + 2σ over every note of the vault), kept for screening."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    spike = models.FloatField()  # the day's footsteps against the note's own daily average before it
    freshness = models.FloatField()  # halves every week since the last visit
    variety = models.PositiveIntegerField()  # distinct questions and notes that visited it that day
    score = models.FloatField()
    bar = models.FloatField()

    class Meta:
        ordering = ["-day", "-score"]
        constraints = [models.UniqueConstraint(fields=["vault", "note", "day"], name="novelty_one_per_note_and_day")]

    def __str__(self) -> str:
        return f"novelty candidate note {self.note_id} on {self.day} ({self.score:.2f} > {self.bar:.2f})"


class ConceptStatus(models.TextChoices):
    PROPOSED = "proposed"
    ACCEPTED = "accepted"
    DISMISSED = "dismissed"


class Concept(models.Model):
    """A concept discovery formed from a hub note's footsteps: a `concept` entity of the graph with its description,
    its member notes and its relations to the vault's earlier concepts. Always a proposal until a person accepts it;
    `written_by` names the model that wrote the description, or the model-free default."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    entity = models.OneToOneField(Entity, on_delete=models.CASCADE, related_name="concept")
    label = models.CharField(max_length=200)
    key = models.CharField(max_length=200)  # the normalised label: one concept per key and vault
    description = models.TextField()
    hub = models.ForeignKey(Note, null=True, on_delete=models.SET_NULL, related_name="+")
    relations = models.JSONField(default=list, blank=True)  # [{"concept": id, "label": …, "why": …}]
    provenance = models.CharField(max_length=16, choices=Provenance.choices, default=Provenance.PROPOSAL)
    written_by = models.CharField(max_length=200)
    fallback = models.TextField(blank=True)  # why the model's reply was not used, when it was not
    status = models.CharField(max_length=16, choices=ConceptStatus.choices, default=ConceptStatus.PROPOSED)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["vault", "key"], name="insights_concept_one_per_key"),
            models.CheckConstraint(condition=models.Q(provenance="proposal"), name="insights_concept_is_proposal"),
        ]

    def __str__(self) -> str:
        return f"concept {self.pk} ({self.status})"  # its label is the vault's words


class ConceptMember(models.Model):
    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    concept = models.ForeignKey(Concept, on_delete=models.CASCADE, related_name="memberships")
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    co_visits = models.PositiveIntegerField(default=0)  # answers and linking notes it shared with the hub

    class Meta:
        constraints = [models.UniqueConstraint(fields=["concept", "note"], name="insights_concept_member_once")]

    def __str__(self) -> str:
        return f"note {self.note_id} in concept {self.concept_id}"


class ScreeningOutcome(models.TextChoices):
    KEPT = "kept"  # survives to formation
    DUPLICATE = "duplicate"  # an existing concept (same label or a label close in meaning)
    GENERIC = "generic"  # a label too broad to be a concept
    FAILED = "failed"  # screening this candidate raised: recorded, the others went on


class Screening(models.Model):
    """What screening made of one novelty candidate: its label, its outcome and why, and what formation did."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    candidate = models.OneToOneField(NoveltyCandidate, on_delete=models.CASCADE, related_name="screening")
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    label = models.CharField(max_length=200, blank=True)
    outcome = models.CharField(max_length=16, choices=ScreeningOutcome.choices)
    reason = models.TextField(blank=True)
    duplicate_of = models.ForeignKey(Concept, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    similarity = models.FloatField(null=True, blank=True)  # to the closest existing concept's label
    labelled_by = models.CharField(max_length=200)  # the scoring model, or the model-free default
    fallback = models.TextField(blank=True)  # why the model's reply was not used, when it was not
    concept = models.ForeignKey(Concept, null=True, blank=True, on_delete=models.SET_NULL, related_name="screenings")
    formation_error = models.TextField(blank=True)  # formation failed on it: the next run tries again
    screened_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-day", "id"]
        indexes = [models.Index(fields=["vault", "day"])]

    def __str__(self) -> str:
        return f"screening of candidate {self.candidate_id}: {self.outcome}"


class Collision(models.Model):
    """Two notes of a vault far apart in meaning that share a bridging domain, with the verdict on whether the
    pairing is fertile. The verdict is stamped with both notes' content (hash and PostgreSQL-held content time):
    it holds while neither note's text changes, whatever happens to their metadata."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    note_a = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")  # the lower id of the two
    note_b = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    distance = models.FloatField()  # cosine distance of the notes' mean passage vectors
    domains = ArrayField(models.CharField(max_length=80), default=list)  # the bridging domains they share
    hash_a = models.CharField(max_length=64)
    hash_b = models.CharField(max_length=64)
    content_at_a = models.DateTimeField(null=True)
    content_at_b = models.DateTimeField(null=True)
    fertile = models.BooleanField()
    why = models.TextField()
    model = models.CharField(max_length=200)  # who judged: a model, or the model-free judge
    judged_at = models.DateTimeField()

    class Meta:
        ordering = ["-distance", "id"]
        constraints = [
            models.UniqueConstraint(fields=["note_a", "note_b"], name="collision_once_per_pair"),
            models.CheckConstraint(condition=models.Q(note_a__lt=models.F("note_b")), name="collision_pair_ordered"),
        ]
        indexes = [models.Index(fields=["vault", "fertile"])]

    def __str__(self) -> str:
        return f"collision of notes {self.note_a_id} and {self.note_b_id}"


class CardKind(models.TextChoices):
    ACTIONABILITY = "actionability"
    CONTRADICTION = "contradiction"
    DISTANCE = "distance"  # semantic distance: a fertile collision
    RECENCY = "recency"


class Card(models.Model):
    """One item of a vault's insights page: what it is about (`key`, its evidence notes and their content as a
    hash), its rank in its list and the short narrative written for it in the background. `narrative` is empty
    until it is written: the page shows only cards that are ready."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=CardKind.choices)
    key = models.CharField(max_length=100)  # what the card is about: `note:<id>`, `pair:<a>-<b>`
    evidence = models.JSONField(default=list)  # [{"note": id, "path": …, "title": …}]
    evidence_hash = models.CharField(max_length=64)  # the evidence notes' content: a change brings the card back
    collision = models.ForeignKey(Collision, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField()
    active = models.BooleanField(default=True)  # still among the list's candidates at the last build
    title = models.CharField(max_length=300)
    draft = models.TextField(blank=True)  # the model-free narrative: the facts the writer is given, and the fallback
    narrative = models.TextField(blank=True)
    why = models.TextField()  # "why am I seeing this": the measure that ranked it
    model = models.CharField(max_length=200, blank=True)  # who wrote the narrative
    built_at = models.DateTimeField()
    written_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["kind", "-score", "id"]
        constraints = [models.UniqueConstraint(fields=["vault", "kind", "key"], name="card_once_per_subject")]
        indexes = [models.Index(fields=["vault", "kind", "active", "score"])]

    def __str__(self) -> str:
        return f"{self.kind} card {self.pk} ({self.key})"


class CardSignal(models.TextChoices):
    ACCEPT = "accept"
    DISMISS = "dismiss"


class CardAnswer(models.Model):
    """A person's answer to a card, for the evidence as it was: a dismissed card stays away until its evidence
    changes (another `evidence_hash`)."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")
    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="answers")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    signal = models.CharField(max_length=8, choices=CardSignal.choices)
    evidence_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["card", "user", "evidence_hash"], name="card_one_answer_per_evidence")
        ]

    def __str__(self) -> str:
        return f"{self.signal} on card {self.card_id}"


class Blend(models.Model):
    """An accepted collision blended into a new note (provenance `proposal`) in the accepting person's personal
    vault. `note` is empty until the worker has written it."""

    vault = models.ForeignKey(Vault, on_delete=models.CASCADE, related_name="+")  # the collision's vault
    collision = models.ForeignKey(Collision, null=True, on_delete=models.SET_NULL, related_name="blends")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    parent_a = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    parent_b = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    note = models.OneToOneField(Note, null=True, blank=True, on_delete=models.SET_NULL, related_name="blend")
    model = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    written_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "parent_a", "parent_b"], name="blend_once_per_person_and_pair")
        ]

    def __str__(self) -> str:
        return f"blend of notes {self.parent_a_id} and {self.parent_b_id} for {self.user_id}"
