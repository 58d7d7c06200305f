"""Windows for agents whose sessions do not record the window (opencode, pi): the model's window as the
agent's profile lists it, so that each agent has one model table, in its profile.

The timeline says where the figure came from: the session never recorded it, the same model can be
served with another window by another provider, and these agents let a user configure the window.
"""

from __future__ import annotations


def profile_window(agent: str, model: str) -> tuple[int, str]:
    """The window ``agent``'s profile gives ``model`` (a provider prefix such as ``anthropic/`` aside),
    and the notice that says so; a model the profile does not list gets its fallback, called a guess."""
    from ctxviz.profiles import get_profile

    spec = get_profile(agent).model_window(model.rsplit("/", 1)[-1], foreign=False)
    if spec.known:
        return (
            spec.window,
            f"the session does not record the window: {spec.window:,} for {model!r}, as the {agent} profile lists it",
        )
    return spec.window, (
        f"the session does not record the window: {spec.window:,} for {model!r} is a guess "
        f"(the {agent} profile does not list the model)"
    )
