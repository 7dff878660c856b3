// A study driven from JavaScript with @langchain/langgraph-sdk against a running server (URL in argv):
// the questions answered (the form's default edited), the data request gone on without, the plan edited (args as
// a JSON string, as inbox UIs send them) and so approved, a follow-up chat message answered, then LangGraph's own
// fork: the plan checkpoint resumed by id with a new return period. Prints one JSON line of what it saw; the
// Python test checks it.
import { Client } from "@langchain/langgraph-sdk";

const client = new Client({ apiUrl: process.argv[2] });
const site = { lat: 41.10, lon: -74.96 };
const interrupt = (state) => {
  const v = state.interrupts[0].value;
  return Array.isArray(v) ? v[0] : v;
};
const seen = {};
const assistant = (await client.assistants.search({ graphId: "aquascope" }))[0].assistant_id;
const { thread_id: tid } = await client.threads.create();

await client.runs.wait(tid, assistant, { input: { site, request: { text: "flood risk at the culvert" } } });
const asked = interrupt(await client.threads.getState(tid));
seen.questions = asked.action_request.action;
const questions = asked.action_request.args.questions.map((q) => (q.field === "return_period" ? { ...q, default: 50 } : q));
await client.runs.wait(tid, assistant, { command: { resume: [{ type: "edit", args: { action: "answer_questions", args: { questions } } }] } });

// the crew asks for the site's basin characteristics (a data request the plan stands without): gone on without
const request = interrupt(await client.threads.getState(tid));
seen.data_request = request.action_request.action;
seen.characteristics = request.action_request.args.request.characteristics.map((c) => `${c.code} (${c.unit})`);
await client.runs.wait(tid, assistant, { command: { resume: [{ type: "response", args: "continue without" }] } });

const plan = interrupt(await client.threads.getState(tid));
seen.plan = plan.action_request.action;
const study = plan.action_request.args.study;
study.steps.find((s) => s.id === "s3").arguments.n_bootstrap = 200;
await client.runs.wait(tid, assistant, { command: { resume: [{ type: "edit", args: JSON.stringify({ action: "approve_plan", args: { study } }) }] } });
let values = (await client.threads.getState(tid)).values;
seen.status = values.status;
seen.answer = values.answer;
seen.n_resamples = values.run.results.s3.payload.fits.gev_lmoments.ci.n_resamples;
seen.decisions = values.request.decisions.map((d) => d.kind);
const before = values.messages.length;

await client.runs.wait(tid, assistant, { input: { messages: [{ type: "human", content: "What is the 50-year flow?", id: "js-1" }] } });
values = (await client.threads.getState(tid)).values;
seen.follow_up = { added: values.messages.length - before, last: values.messages.at(-1), status: values.status };

// the fork: LangGraph's own, the plan checkpoint resumed by id with a new answer (LangChain v1 decisions)
const history = await client.threads.getHistory(tid, { limit: 100 });
const atPlan = history.find((h) => h.next.length === 1 && h.next[0] === "review");
seen.fork_waits = interrupt(atPlan).action_request.action;
await client.runs.wait(tid, assistant, { checkpointId: atPlan.checkpoint.checkpoint_id, command: { resume: { decisions: [{ type: "edit", edited_action: { name: "approve_plan", args: { intake: { return_period: 200 } } } }] } } });
values = (await client.threads.getState(tid)).values;
seen.fork = { status: values.status, answer: values.answer, objective: values.study.plan.objective, decisions: values.request.decisions.map((d) => d.kind) };
console.log(JSON.stringify(seen));
