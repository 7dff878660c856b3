"""The review desk: a web page on the crew's own LangGraph server where a hydrologist reviews, approves and
reads studies (langgraph.json: ``"http": {"app": "./graphs/desk/app.py:app"}``; open ``/desk`` on the server).

- graphs.desk.app: the routes (the Starlette app the server mounts beside its API);
- graphs.desk.session: signing in with a token the server's auth handler accepts (a cookie the pages forward);
- graphs.desk.api: every action as a call of the server's own API as the signed-in user;
- graphs.desk.forms: the forms read back into the interrupts' answers;
- graphs.desk.pages, graphs.desk.study_page: the HTML; graphs.desk.forks: forks and the sensitivity table;
- static/: the style sheet (screen and print) and the little script (live progress, the report's height).
"""
