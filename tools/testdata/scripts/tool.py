import json
import os
import subprocess
import sys
import time

msg = json.load(sys.stdin)
cmd, params = msg["command"], msg["parameters"]
if cmd == "echo":
    json.dump({"command": cmd, "parameters": params, "argv": sys.argv[1:]}, sys.stdout)
elif cmd == "text":
    print("  plain text from python  ")
elif cmd == "fail":
    print("python broke", file=sys.stderr)
    sys.exit(3)
elif cmd == "big":
    sys.stdout.write("[" + "1," * params["n"] + "1]")
elif cmd == "spawn":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    with open(params["pidfile"] + ".tmp", "w") as f:
        f.write("%d %d" % (os.getpid(), child.pid))
    os.rename(params["pidfile"] + ".tmp", params["pidfile"])
    time.sleep(30)
else:
    print("unknown command " + cmd, file=sys.stderr)
    sys.exit(2)
