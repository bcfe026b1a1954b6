"""The solver: one task episode, played by Inspect's model through tool calls.

It borrows the sample's Env worker (sandbox.py), resets it for the sample's task, and
loops: the observation goes to the model (as the answer to its last tool calls, or as a
user turn), the model's tool calls are played on the Env one step each, until `done`, the
task's step budget, or an Inspect limit. As in our model agents (model_agent.py): a reply
without a tool call is the final message (`done` with it as the answer); a call that maps
onto no action is refused in its tool result, the rest of its batch is not run, and a turn
that played nothing costs a zero-second `wait`, so every model call spends budget; an action
that failed voids the rest of its batch. Each step gets a note (reasoning, tokens, priced
as our agents price them) in the record's trajectory, as `run_episode` files them.
"""
from __future__ import annotations

from types import SimpleNamespace

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageTool, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolCall, ToolCallError
from inspect_ai.util import sandbox

from admindesk.harness.agents.accounting import call_usage
from admindesk.harness.agents.base import StepNote, Usage
from admindesk.harness.agents.loop import attach_notes
from admindesk.harness.agents.model_agent import MalformedReply, observation_text
from admindesk.harness.agents.openai_compatible import system_prompt
from admindesk.harness.env.actions import Action, Done, Wait
from admindesk.harness.env.observation import Observation
from admindesk.harness.integrations.inspect.sandbox import AdminDeskSandbox
from admindesk.harness.integrations.inspect.tools import (
    action_tools,
    call_action,
    newest_screenshots,
    observation_message,
)
from admindesk.verifiers.records import EpisodeRecord

NOT_RUN = "not run: an earlier call of this turn failed or ended the episode"


class Episode:
    """What one sample's solver keeps: the Env worker, the step notes, the episode's end."""

    def __init__(self, box: AdminDeskSandbox, mode: str, action_space: str) -> None:
        self.box, self.mode, self.action_space = box, mode, action_space
        self.notes: list[StepNote] = []
        self.over = False

    async def step(self, action: Action, note: StepNote) -> Observation:
        observation, terminated, truncated = await self.box.host.request("step", action.model_dump())
        note.action = action.model_dump()
        self.notes.append(note)
        self.over = terminated or truncated
        return observation

    async def play_turn(self, output: ModelOutput, observation: Observation, model_name: str
                        ) -> tuple[Observation, list[ChatMessage]]:
        """Play the reply's tool calls; the new observation and the tool results to send."""
        usage = output.usage
        first = StepNote(step=observation.step, reasoning=output.message.text,
                         usage=call_usage(model_name, usage.input_tokens if usage else 0,
                                          usage.output_tokens if usage else 0,
                                          (usage.input_tokens_cache_read or 0) if usage else 0),
                         # The call on record, as the leaderboard asks (the reply's id in the log).
                         details={"response_id": output.message.id or "", "model": output.model})
        calls: list[ToolCall] = output.message.tool_calls or []
        if not calls:  # the final message
            return await self.step(Done(answer=output.completion or None), first), []
        results: list[tuple[ToolCall, Observation | None, str | None]] = []
        stopped, refused = False, ""
        for call in calls:
            if stopped or self.over:
                results.append((call, None, NOT_RUN))
                continue
            note = first if not self.notes or self.notes[-1] is not first else StepNote(
                step=observation.step, details={"batched": True})
            try:
                action = call_action(call.function, call.arguments, self.action_space)
            except MalformedReply as exc:
                first.error = f"malformed tool call: {exc}"
                refused = f"{call.function}({call.arguments})"[:4_000]
                results.append((call, None, f"refused: {exc}"))
                stopped = True
                continue
            observation = await self.step(action, note)
            results.append((call, observation, None))
            stopped = observation.last_action_error is not None
        if all(played is None for _call, played, _error in results):
            first.details["raw_reply"] = refused  # the reply this zero-second wait answers
            observation = await self.step(Wait(seconds=0), first)  # a turn always spends budget
        return observation, self._tool_results(results)

    def _tool_results(self, results: list[tuple[ToolCall, Observation | None, str | None]]) -> list[ChatMessage]:
        last_played = max((i for i, (_c, played, _e) in enumerate(results) if played is not None), default=None)
        messages: list[ChatMessage] = []
        for index, (call, played, error) in enumerate(results):
            if error is not None:
                messages.append(ChatMessageTool(content=error, tool_call_id=call.id, function=call.function,
                                                error=ToolCallError("parsing", error)))
            elif index == last_played:
                messages.append(observation_message(played, self.mode, tool_call_id=call.id, function=call.function))
            else:  # an earlier action of the batch: its page is gone, only the text is told
                messages.append(ChatMessageTool(content=observation_text(played, include_axtree=False),
                                                tool_call_id=call.id, function=call.function))
        return messages

    async def record(self) -> EpisodeRecord:
        """The episode's record, with the notes filed into its trajectory."""
        record = await self.box.host.request("record")
        attach_notes(record, SimpleNamespace(notes=self.notes))
        return record

    @property
    def usage(self) -> Usage:
        total = Usage()
        for note in self.notes:
            total = total + note.usage
        return total


@solver
def admindesk_agent(tasks_dir: str | None = None, max_steps: int | None = None, *, action_space: str = "coordinate", observation: str = "screenshot",
                    keep_screenshots: int = 3, frame_size: tuple[int, int] = (1280, 800)) -> Solver:
    """Play the sample's task (a task file of `tasks_dir`) on the Env with the eval's model
    (see the module docstring)."""
    from admindesk.harness.integrations.inspect.task import task_files

    tools = action_tools(action_space)
    system = system_prompt(action_space, frame_size, "tool_calling")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        box = sandbox().as_type(AdminDeskSandbox)
        model = get_model()
        episode = Episode(box, observation, action_space)
        box.episode = episode  # the scorer reads the record from it, even after a limit
        task = task_files(tasks_dir, max_steps)[str(state.sample_id)]
        current, _goal = await box.host.request("reset", task)
        state.messages.insert(0, ChatMessageSystem(content=system))
        state.messages.append(observation_message(current, observation))
        while not episode.over:
            output = await model.generate(newest_screenshots(state.messages, keep_screenshots), tools=tools)
            state.output = output
            state.messages.append(output.message)
            current, results = await episode.play_turn(output, current, model.name)
            state.messages.extend(results)
        return state

    return solve
