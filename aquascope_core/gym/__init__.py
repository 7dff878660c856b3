"""The gym: tasks generated from the playbooks, and the scores of what an agent plans and delivers.

Pure like the rest of the engine: the agents that answer the tasks (the tree, the crew, one model call)
live beside the crew in ``graphs/gym_agents.py``; this package holds the tasks (:mod:`.tasks`), the scoring
(:mod:`.scoring`, :mod:`.deliverable`) and the leaderboard (:mod:`.board`).
"""

from aquascope_core.gym.tasks import (GRADES, SHIPPED_TASKS, Task, read_tasks, split_tasks, task_key,
                                      tasks_from_playbooks, write_tasks)

__all__ = ["GRADES", "SHIPPED_TASKS", "Task", "read_tasks", "split_tasks", "task_key", "tasks_from_playbooks",
           "write_tasks"]
