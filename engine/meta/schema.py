"""Pydantic models of doctype JSON, and `Meta`: the precomputed, read-only view the engine uses."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine import exceptions as exc
from engine.translation import _

NO_VALUE_TYPES = frozenset({"Section Break", "Column Break", "Tab Break", "HTML", "Button", "Image",
                            "Fold", "Heading"})
TABLE_TYPES = frozenset({"Table", "Table MultiSelect"})
VALUE_TYPES = frozenset({
    "Data", "Int", "Float", "Currency", "Percent", "Check", "Date", "Datetime", "Time", "Duration",
    "Select", "Link", "Dynamic Link", "JSON", "Password", "Small Text", "Text", "Long Text",
    "Text Editor", "Code", "Attach", "Attach Image", "Rating", "Read Only", "Autocomplete", "Color",
    "Markdown Editor", "HTML Editor", "Phone", "Long Int", "Signature", "Geolocation", "Barcode", "Icon",
})
ALL_TYPES = NO_VALUE_TYPES | TABLE_TYPES | VALUE_TYPES

STANDARD_FIELDS = ("name", "owner", "creation", "modified", "modified_by", "docstatus", "idx")
# kept by the framework on every document, not sent with it, but filterable: `_assign` (a JSON list of
# the users with an open ToDo on it, engine/desk/assign_to.py)
OPTIONAL_FIELDS = ("_assign",)
CHILD_FIELDS = ("parent", "parentfield", "parenttype")
RIGHTS = ("select", "read", "write", "create", "delete", "submit", "cancel", "amend", "report",
          "export", "import", "share", "print", "email")

_FIELDNAME = re.compile(r"^[a-z_][a-z0-9_]*$")


def scrub(text: str) -> str:
    """'Warehouse Violation' -> 'warehouse_violation' (file, module and collection names)."""
    return text.replace(" ", "_").replace("-", "_").lower()


def collection_name(doctype: str) -> str:
    """The MongoDB collection holding a doctype's records (`Meta.collection`): its name scrubbed."""
    return scrub(doctype)


class DocFieldSchema(BaseModel):
    """One DocField. Unknown Frappe keys are kept (the web UI reads them) but not interpreted."""

    model_config = ConfigDict(extra="allow", frozen=True)

    fieldname: str = ""
    fieldtype: str = "Data"
    label: str | None = None
    options: str | None = None
    reqd: bool = False
    unique: bool = False
    default: Any = None
    read_only: bool = False
    hidden: bool = False
    fetch_from: str | None = None
    fetch_if_empty: bool = False
    in_list_view: bool = False
    length: int = 0
    precision: int | None = None
    permlevel: int = 0
    allow_on_submit: bool = False
    set_only_once: bool = False
    non_negative: bool = False
    search_index: bool = False
    no_copy: bool = False
    ignore_user_permissions: bool = False
    description: str | None = None

    @field_validator("fieldtype")
    @classmethod
    def _known_type(cls, v: str) -> str:
        if v not in ALL_TYPES:
            raise ValueError(f"unknown fieldtype {v!r}")
        return v

    @field_validator("precision", mode="before")
    @classmethod
    def _precision(cls, v: Any) -> Any:
        return None if v in ("", None) else int(v)

    @model_validator(mode="after")
    def _check(self) -> DocFieldSchema:
        if self.fieldtype in NO_VALUE_TYPES:
            return self
        if not _FIELDNAME.match(self.fieldname):
            raise ValueError(f"invalid fieldname {self.fieldname!r} (lowercase letters, digits, _)")
        if self.fieldtype in ("Link", "Dynamic Link", *TABLE_TYPES) and not self.options:
            raise ValueError(f"field {self.fieldname!r} of type {self.fieldtype} needs `options`")
        return self

    @property
    def has_value(self) -> bool:
        return self.fieldtype not in NO_VALUE_TYPES and self.fieldtype not in TABLE_TYPES

    @property
    def is_table(self) -> bool:
        return self.fieldtype in TABLE_TYPES

    @property
    def display_label(self) -> str:
        return self.label or self.fieldname.replace("_", " ").title()

    @cached_property
    def select_options(self) -> list[str]:
        return [o for o in (self.options or "").split("\n") if o.strip() != ""]


class DocPermSchema(BaseModel):
    """A DocPerm row. Rights that are not given are 0 (Frappe's JSON export drops zeros)."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    role: str
    permlevel: int = 0
    if_owner: bool = False
    select: bool = False
    read: bool = False
    write: bool = False
    create: bool = False
    delete: bool = False
    submit: bool = False
    cancel: bool = False
    amend: bool = False
    report: bool = False
    export: bool = False
    import_: bool = Field(default=False, alias="import")
    share: bool = False
    print: bool = False
    email: bool = False

    def has(self, right: str) -> bool:
        return bool(getattr(self, "import_" if right == "import" else right, False))


class IndexSchema(BaseModel):
    """fw's compound index: `{"fields": [...], "unique": bool, "where": {field: condition}}`. The
    index covers only documents matching every condition of `where`: a plain value (equality) or
    `{"$exists": true}` (the field is set; nulls are never stored, so: not empty). That is what lets a
    `unique` field be restated as a unique index that starts with a shard key (docs/scaling.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fields: list[str] = Field(min_length=1)
    unique: bool = False
    where: dict[str, Any] | None = None
    name: str | None = None

    @field_validator("where")
    @classmethod
    def _conditions(cls, where: dict[str, Any] | None) -> dict[str, Any] | None:
        for fieldname, condition in (where or {}).items():
            if isinstance(condition, dict) and condition != {"$exists": True}:
                raise ValueError(f"index condition on {fieldname!r} must be a plain value or "
                                 f'{{"$exists": true}}, not {condition!r}')
            if isinstance(condition, list):
                raise ValueError(f"index condition on {fieldname!r} must be a plain value or "
                                 f'{{"$exists": true}}, not a list')
        return where


class DocTypeSchema(BaseModel):
    """A doctype as written in JSON (Frappe's DocType keys plus `indexes`)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    name: str
    module: str | None = None
    doctype: Literal["DocType"] = "DocType"
    fields: list[DocFieldSchema] = Field(default_factory=list)
    permissions: list[DocPermSchema] = Field(default_factory=list)
    autoname: str | None = None
    naming_rule: str | None = None
    is_submittable: bool = False
    istable: bool = False
    issingle: bool = False
    is_tree: bool = False
    nsm_parent_field: str | None = None
    track_changes: bool = False
    title_field: str | None = None
    sort_field: str = "creation"
    sort_order: Literal["ASC", "DESC", "asc", "desc"] = "DESC"
    search_fields: str | None = None
    indexes: list[IndexSchema] = Field(default_factory=list)
    # the key an operator may shard the collection on (docs/scaling.md): fw does not shard, it checks
    # at load that the doctype's unique constraints and naming still hold on a sharded cluster
    shard_key: list[str] | None = None
    custom: bool = False

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not v or not re.match(r"^[A-Za-z][A-Za-z0-9 _-]*$", v):
            raise ValueError(f"invalid doctype name {v!r}")
        return v

    @model_validator(mode="after")
    def _unique_fieldnames(self) -> DocTypeSchema:
        seen: set[str] = set()
        for f in self.fields:
            if not f.fieldname or f.fieldtype in NO_VALUE_TYPES:
                continue
            if f.fieldname in seen:
                raise ValueError(f"duplicate fieldname {f.fieldname!r}")
            if f.fieldname in STANDARD_FIELDS or f.fieldname in ("doctype", "_id"):
                raise ValueError(f"fieldname {f.fieldname!r} is reserved")
            seen.add(f.fieldname)
        return self

    @model_validator(mode="after")
    def _shardable(self) -> DocTypeSchema:
        if self.shard_key is not None:
            problem = shard_key_problem(self, self.shard_key)
            if problem:
                raise ValueError(f"shard_key {self.shard_key}: {problem}")
        return self


# names a shard key other than `_id` allows: a counter (unique across shards by construction) or a
# UUID; `hash` (10 random characters), `Prompt` and `field:` names could repeat on another shard,
# where MongoDB enforces `_id` uniqueness only per shard
_SHARDABLE_AUTONAMES = ("autoincrement", "uuid", "naming_series:", "format:")


def shard_key_problem(schema: DocTypeSchema, key: list[str]) -> str | None:
    """Why `key` cannot be this doctype's shard key (docs/scaling.md §5 step 3), or None."""
    if not key or len(set(key)) != len(key):
        return "a shard key is a non-empty list of distinct field names"
    if schema.istable or schema.issingle or schema.is_tree:
        return "child tables, singles and trees cannot be sharded"
    by_name = {f.fieldname: f for f in schema.fields if f.fieldname}
    for fieldname in key:
        if fieldname == "name":
            continue
        field = by_name.get(fieldname)
        if field is None:
            return f"{fieldname!r} is not a field of {schema.name}"
        if field.fieldtype not in ("Data", "Link") or not field.reqd:
            return f"{fieldname!r} must be a mandatory (reqd) Data or Link field, the value every document has"
    for field in schema.fields:
        if field.unique and key != [field.fieldname]:
            return (f"the unique field {field.fieldname!r} cannot be enforced across shards: declare a unique "
                    f"`indexes` entry that starts with {key} instead")
    for index in schema.indexes:
        if index.unique and index.fields[:len(key)] != key:
            return (f"the unique index {index.name or index.fields} must start with the shard key, or MongoDB "
                    "cannot enforce it across shards")
    autoname = (schema.autoname or "").strip().lower()
    if key != ["name"] and not (autoname.startswith(_SHARDABLE_AUTONAMES) or "#" in autoname):
        return (f"autoname {schema.autoname or 'hash'!r} can repeat a name on another shard: use a counter "
                "(`PREFIX-.#####`, `naming_series:`, `autoincrement`) or `UUID`, or shard on name")
    return None


class Meta:
    """Read-only, precomputed view of one doctype (schema + custom fields) for the hot paths."""

    def __init__(self, schema: DocTypeSchema, custom_fields: list[DocFieldSchema] | None = None,
                 adjust: Callable[[list[DocFieldSchema]], list[DocFieldSchema]] | None = None) -> None:
        self.schema = schema
        self.registry: Any = None  # the MetaRegistry that built it (resolves child doctypes)
        self.name = schema.name
        self.module = schema.module
        self.istable = schema.istable
        self.issingle = schema.issingle
        self.is_submittable = schema.is_submittable
        self.is_tree = schema.is_tree
        self.track_changes = schema.track_changes
        self.autoname = (schema.autoname or "").strip()
        self.title_field = schema.title_field
        self.sort_field = schema.sort_field or "creation"
        self.sort_order = schema.sort_order.lower()
        self.permissions = schema.permissions
        self.indexes = schema.indexes
        self.collection = collection_name(schema.name)
        fields = list(schema.fields)
        for extra in self._implicit_fields(fields):
            fields.append(extra)
        if custom_fields:
            fields = _insert_custom_fields(fields, custom_fields)
        if adjust is not None:  # the site's Property Setters (engine/meta/properties.py)
            fields = adjust(fields)
            if "field_order" in (schema.model_extra or {}):
                self.schema = schema.model_copy(update={"field_order": [f.fieldname for f in fields if f.fieldname]})
        self.fields: list[DocFieldSchema] = fields
        # merged from the site (Custom Fields, a workflow's state field), not the app's JSON
        self.custom_fieldnames: frozenset[str] = frozenset(f.fieldname for f in custom_fields or ())
        self.by_name: dict[str, DocFieldSchema] = {f.fieldname: f for f in fields if f.fieldname}
        self.value_fields = [f for f in fields if f.has_value]
        self.table_fields = [f for f in fields if f.is_table]
        self.table_fieldnames = frozenset(f.fieldname for f in self.table_fields)
        self.link_fields = [f for f in fields if f.fieldtype == "Link"]
        self.dynamic_link_fields = [f for f in self.value_fields if f.fieldtype == "Dynamic Link"]
        # what every save looks at, picked out once (engine/documents/validation.py)
        self.default_fields = [f for f in self.value_fields if f.default is not None]
        self.mandatory_fields = [f for f in self.value_fields if f.reqd]
        self.set_only_once_fields = [f for f in self.value_fields if f.set_only_once]
        self.unique_fields = [f for f in fields if f.unique and f.has_value]
        self.fetch_fields = [f for f in fields if f.fetch_from]
        self.password_fields = [f for f in fields if f.fieldtype == "Password"]
        self.standard = STANDARD_FIELDS + (CHILD_FIELDS if self.istable else ())
        self.data_fieldnames: frozenset[str] = frozenset(f.fieldname for f in self.value_fields)
        self.fieldnames: frozenset[str] = frozenset(self.standard) | self.data_fieldnames | frozenset(
            f.fieldname for f in self.table_fields)
        # what queries may name: every field but passwords (their stored hashes never leave the engine)
        self.queryable: frozenset[str] = (self.fieldnames - {f.fieldname for f in self.password_fields}) | (
            frozenset() if self.istable else frozenset(OPTIONAL_FIELDS))
        # what every reader of a document may read and filter on, whatever the fields' permlevels
        self.standard_readable: frozenset[str] = frozenset(self.standard) | (
            frozenset() if self.istable else frozenset(OPTIONAL_FIELDS))
        self.permlevels = frozenset(f.permlevel for f in fields if f.fieldname) | {0}
        self.has_permlevels = self.permlevels != {0}  # any field above level 0 (asked per request)
        # the list queries parsed against this meta (engine/query/listing.py); a reload starts afresh
        self.query_plans: dict[Any, Any] = {}
        # the DocType record and Desk bundle built from this meta (engine/meta/record.py, bundle.py)
        self.bundle_cache: dict[Any, Any] = {}
        # what engine modules work out once per meta (engine/documents/one_call.py's update plan)
        self.engine_cache: dict[str, Any] = {}
        # what `Document.as_dict` writes, in order: standard fields, then values and tables, never passwords
        self.serial_keys: tuple[str, ...] = tuple(self.standard) + tuple(
            f.fieldname for f in fields if f.fieldname and (f.has_value or f.is_table) and f.fieldtype != "Password")
        self.serial_keyset = frozenset(self.serial_keys)
        # the fields whose stored values can be dicts or lists (JSON values and child tables): the only
        # ones a loaded document must copy so that it never shares them with its stored snapshot
        self.json_fieldnames = frozenset(f.fieldname for f in self.value_fields if f.fieldtype == "JSON")
        self.nested_fieldnames = self.table_fieldnames | self.json_fieldnames
        # what a document accepts as a field (`BaseDocument.update`): fields and the child-row keys
        self.settable: frozenset[str] = self.fieldnames | frozenset(CHILD_FIELDS)

    def _implicit_fields(self, fields: list[DocFieldSchema]) -> list[DocFieldSchema]:
        names = {f.fieldname for f in fields}
        extra: list[DocFieldSchema] = []
        if self.is_submittable and "amended_from" not in names:
            extra.append(DocFieldSchema(fieldname="amended_from", fieldtype="Link", options=self.name,
                                        label="Amended From", read_only=True, no_copy=True))
        if self.is_tree:
            parent = self.nsm_parent_field
            if parent not in names:
                extra.append(DocFieldSchema(fieldname=parent, fieldtype="Link", options=self.name,
                                            label=f"Parent {self.name}"))
            if "is_group" not in names:
                extra.append(DocFieldSchema(fieldname="is_group", fieldtype="Check", label="Is Group"))
        return extra

    @property
    def nsm_parent_field(self) -> str:
        return self.schema.nsm_parent_field or f"parent_{scrub(self.name)}"

    @cached_property
    def rows_have_permlevels(self) -> bool:
        """Whether the child doctype of one of its tables has fields above level 0 (whose access the
        parent's DocPerm rows decide, as in Frappe). Asked per request; read through the registry."""
        registry = self.registry
        return registry is not None and any(registry.get(t.options or "").has_permlevels for t in self.table_fields)

    @cached_property
    def field_labels(self) -> dict[str, str]:
        """Fieldname to label, for the errors a write may raise (built once, not per write)."""
        return {f.fieldname: f.display_label for f in self.fields if f.fieldname}

    def get_field(self, fieldname: str) -> DocFieldSchema | None:
        return self.by_name.get(fieldname)

    def has_field(self, fieldname: str) -> bool:
        return fieldname in self.queryable

    def label(self, fieldname: str) -> str:
        f = self.by_name.get(fieldname)
        return f.display_label if f else fieldname.replace("_", " ").title()

    def require_field(self, fieldname: str) -> DocFieldSchema:
        f = self.by_name.get(fieldname)
        if f is None:
            raise exc.DataError(_("Field {0} does not exist in {1}", fieldname, self.name), field=fieldname)
        return f

    def as_dict(self) -> dict[str, Any]:
        """The doctype as JSON for clients (the web UI), custom fields and property setters included."""
        data = self.schema.model_dump(mode="json", by_alias=True, exclude_none=True)
        data["fields"] = [f.model_dump(mode="json", exclude_none=True) for f in self.fields]
        return data

    def __repr__(self) -> str:
        return f"<Meta {self.name}>"


def _insert_custom_fields(fields: list[DocFieldSchema], custom: list[DocFieldSchema]) -> list[DocFieldSchema]:
    """Place each custom field after its `insert_after` field (or at the end)."""
    out = list(fields)
    for cf in custom:
        if any(f.fieldname == cf.fieldname for f in out):
            raise exc.ConfigurationError(f"Custom Field {cf.fieldname!r} clashes with an existing field")
        after = (cf.model_extra or {}).get("insert_after")
        pos = next((i + 1 for i, f in enumerate(out) if after and f.fieldname == after), len(out))
        out.insert(pos, cf)
    return out


def parse_doctype(data: dict[str, Any], source: str) -> DocTypeSchema:
    """Validate doctype JSON; errors name the file and what is wrong."""
    from pydantic import ValidationError as PydanticValidationError

    try:
        return DocTypeSchema.model_validate(data)
    except PydanticValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors()[:5])
        raise exc.ConfigurationError(f"Invalid doctype JSON in {source}: {problems}") from e
