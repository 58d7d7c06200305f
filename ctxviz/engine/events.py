"""What each scenario event does to the window, one handler per event kind. A handler adds the step's
blocks and notes and returns the step's kind and label; the replay closes the step. Tool names come from
the profile (``profile.tools``), so hooks match the agent's own names."""

from __future__ import annotations

from ctxviz.engine.session import EngineSession, M, fmt, short
from ctxviz.kinds import BlockKind, StepKind, Touch
from ctxviz.profiles.base import Background
from ctxviz.scenario.event_model import (
    BashEvent,
    EditEvent,
    GlobEvent,
    GrepEvent,
    PlanEvent,
    PromptEvent,
    ReadEvent,
    ReplyEvent,
    SearchSpec,
    SkillEvent,
    ToolEvent,
    WriteEvent,
)
from ctxviz.scenario.measure import Measure

Outcome = tuple[StepKind, str]


def prompt(session: EngineSession, event: PromptEvent, spilled: bool) -> Outcome:
    spec = event.prompt
    label = short(spec.text)
    between_turns = getattr(session.profile.compaction, "between_turns", None)
    if between_turns is not None:  # what an agent does to old history as a new turn starts (prune, masking)
        between_turns(session)
    session.add(M, BlockKind.PROMPT, label, spec.size.tokens, spec.visibility)
    if session.subagent_type is None:  # a subagent's task prompt is not a user prompt
        for hook in session.hooks("UserPromptSubmit", ""):
            session.hook_block(hook, "UserPromptSubmit")
    for mention in spec.mentions:
        if session.exists(mention.path) or _is_folder(session, mention.path):
            session.profile.mention.mention(session, mention)
    return StepKind.PROMPT, label


def _is_folder(session: EngineSession, path: str) -> bool:
    return path.endswith("/") and any(name.startswith(path) for name in session.files)


def reply(session: EngineSession, event: ReplyEvent, spilled: bool) -> Outcome:
    label = session.profile.reply_label
    session.add(M, BlockKind.REPLY, label, event.reply.tokens, "full")
    return StepKind.REPLY, label


def read(session: EngineSession, event: ReadEvent, spilled: bool) -> Outcome:
    read_file(session, event.read.path)
    return StepKind.READ, event.read.path


def read_file(session: EngineSession, path: str) -> None:
    """The read tool's call, its result and the hooks around it."""
    tool = session.profile.tools.read
    session.tool_call(tool, f"{tool} {path}")
    session.read(path, label=path, mention=False)
    session.post_tool_hooks(tool)


def edit(session: EngineSession, event: EditEvent, spilled: bool) -> Outcome:
    spec, p = event.edit, session.profile
    tool = p.tools.edit
    session.add(M, BlockKind.EDIT, f"{tool} {spec.path}", p.tool_call + spec.change.tokens, "full")
    for hook in session.hooks("PreToolUse", tool):
        session.hook_block(hook, f"PreToolUse:{tool}")
    result = spec.result.tokens if spec.result else p.edit_result
    session.add(M, BlockKind.TOOL_OUTPUT, f"{spec.path} edited", result, "full")
    session.changed(spec.path, Touch.EDIT)
    if spec.file_after is not None:
        session.resize(spec.path, spec.file_after)
    session.post_tool_hooks(tool)
    return StepKind.EDIT, spec.path


def write(session: EngineSession, event: WriteEvent, spilled: bool) -> Outcome:
    spec, p = event.write, session.profile
    tool = p.tools.write
    if spec.path not in session.files and spec.content is not None:
        if not session.exists(spec.path):
            session.note(f"{spec.path} is a new file: the write creates it")
        session.create(spec.path, spec.content)
    size = spec.content or session.file_size(spec.path)
    session.add(M, BlockKind.EDIT, f"{tool} {spec.path}", p.tool_call + size.tokens, "full")
    for hook in session.hooks("PreToolUse", tool):
        session.hook_block(hook, f"PreToolUse:{tool}")
    session.add(M, BlockKind.TOOL_OUTPUT, f"{spec.path} written", p.edit_result, "full")
    session.changed(spec.path, Touch.WRITE)
    if spec.file_after is not None:
        session.resize(spec.path, spec.file_after)
    session.post_tool_hooks(tool)
    return StepKind.WRITE, spec.path


def grep(session: EngineSession, event: GrepEvent, spilled: bool) -> Outcome:
    return _search(session, session.profile.tools.grep, StepKind.GREP, event.grep, spilled)


def glob(session: EngineSession, event: GlobEvent, spilled: bool) -> Outcome:
    return _search(session, session.profile.tools.glob, StepKind.GLOB, event.glob, spilled)


def _search(session: EngineSession, tool: str, kind: StepKind, spec: SearchSpec, spilled: bool) -> Outcome:
    label = f'{tool} "{spec.pattern}"'
    session.tool_call(tool, label)
    if spec.matches is not None:
        _, why = capped_search(session, kind, spec.matches)
        if why:
            session.note(why)
    session.output(tool, label, search_size(session, kind, spec), spilled, digest=spec.digest)
    session.post_tool_hooks(tool)
    return kind, spec.pattern


def capped_search(session: EngineSession, kind: StepKind, matches: int) -> tuple[int, str | None]:
    """Tokens of a search result of ``matches`` results within the tool's cap, and why when cut."""
    caps = session.profile.search
    if kind is StepKind.GREP:
        cap, per, tool = caps.grep_max_results, caps.grep_tokens_per_result, session.profile.tools.grep
    else:
        cap, per, tool = caps.glob_max_results, caps.glob_tokens_per_path, session.profile.tools.glob
    if matches > cap:
        return cap * per, f"{tool} returns at most {cap:,} results: {cap:,} of {matches:,} kept"
    return matches * per, None


def search_size(session: EngineSession, kind: StepKind, spec: SearchSpec) -> Measure:
    """A search result: given as a size, or as a match count within the tool's cap."""
    if spec.output is not None:
        return spec.output
    assert spec.matches is not None  # the schema requires one of the two
    return Measure.of_tokens(capped_search(session, kind, spec.matches)[0])


def bash(session: EngineSession, event: BashEvent, spilled: bool) -> Outcome:
    spec, p = event.bash, session.profile
    tool = p.tools.bash
    label = short(spec.command, 50)
    session.tool_call(tool, f"{tool} {label}")
    if spec.background:
        session.add(M, BlockKind.TOOL_OUTPUT, f"{label} (started in background)", p.background_launch, "brief")
        session.note(f"runs in the background: a {p.background_launch}-token notice now, a notification later")
        why = f"background command finished: a {p.notification}-token notification (output on disk)"
        session.state.background.append(
            Background(f"Background done: {label}", spec.finishes_after + 1, p.notification, why)
        )
    else:
        session.output(tool, label, spec.output, spilled, digest=spec.digest)
    session.post_tool_hooks(tool)
    return StepKind.BASH, label


def tool(session: EngineSession, event: ToolEvent, spilled: bool) -> Outcome:
    spec, p = event.tool, session.profile
    mcp = p.tools.mcp(spec.name)
    if mcp is not None:
        server = next((s for s in session.scenario.setup.mcp if s.server == mcp[0]), None)
        if server is not None and server.deferred and spec.name not in session.state.loaded_schemas:
            session.state.loaded_schemas.add(spec.name)
            tokens = p.mcp_schema_tokens
            session.add(M, BlockKind.TOOL_OUTPUT, f"ToolSearch: {spec.name} schema", tokens)
            session.note(
                f"{spec.name} is deferred: its schema ({fmt(tokens)} tokens) loads through tool search "
                "before the first call"
            )
    session.tool_call(spec.name, spec.name, spec.call.tokens)
    if spec.cut_by == p.name:  # as it reached the model: this agent's cut is already in its size
        session.add(M, BlockKind.TOOL_OUTPUT, spec.name, spec.output.tokens, "brief")
    else:
        session.output(spec.name, spec.name, spec.output, spilled, digest=spec.digest)
    if spec.reads is not None and session.exists(spec.reads):
        session.touch(spec.reads)
    session.post_tool_hooks(spec.name)
    return StepKind.TOOL, spec.name


def skill(session: EngineSession, event: SkillEvent, spilled: bool) -> Outcome:
    use = event.skill
    found = next(s for s in session.scenario.setup.skills if s.name == use.name)
    session.state.invoked_skills[found.name] = session.order()
    body = found.body.tokens
    if use.by == "user":
        session.add(M, BlockKind.SKILL_BODY, f"/{found.name}", body, "brief")
        session.note(f"/{found.name}: you invoked the skill; its whole body ({fmt(body)}) loads")
        return StepKind.PROMPT, f"/{found.name}"
    name = session.profile.tools.skill
    session.tool_call(name, f"{name} {found.name}")
    session.add(M, BlockKind.SKILL_BODY, f"Skill: {found.name}", body, "brief")
    session.note(f"skill {found.name} invoked: its whole SKILL.md ({fmt(body)} tokens) loads")
    session.post_tool_hooks(name)
    return StepKind.SKILL, found.name


def plan(session: EngineSession, event: PlanEvent, spilled: bool) -> Outcome:
    state = session.state
    if state.plan_block is not None and session.is_live(state.plan_block):
        session.remove(state.plan_block)
        session.note("the new plan replaces the previous one")
    state.plan = event.plan.tokens
    state.plan_block = session.add(M, BlockKind.PLAN, "Plan", event.plan.tokens, "full")
    return StepKind.PLAN, "Plan"
