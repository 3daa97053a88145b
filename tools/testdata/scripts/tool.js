let input = "";
process.stdin.on("data", (d) => { input += d; });
process.stdin.on("end", () => {
  const { command, parameters } = JSON.parse(input);
  if (command === "echo") {
    process.stdout.write(JSON.stringify({ command, parameters, argv: process.argv.slice(2) }));
  } else if (command === "text") {
    process.stdout.write("plain text from node\n");
  } else if (command === "fail") {
    process.stderr.write("node broke\n");
    process.exit(3);
  } else {
    process.stderr.write("unknown command " + command + "\n");
    process.exit(2);
  }
});
