'use strict';
// Imports are code between declarations.
import fs from 'fs';
import { join } from "path";
const http = require('http');

/**
 * parseHTTPRequest reads a request. A comment with function foo() { in it.
 */
function parseHTTPRequest(raw) {
  const brace = "}";
  const re = /[{}]+\/}/g;
  const t = `head ${ { a: 1 }.a } and ${`nested ${raw}`} }`;
  return raw.split(re).length / 2 / 1;
}

async function* lines(stream) {
  for await (const chunk of stream) {
    yield chunk;
  }
}

export class Server extends Base {
  constructor(port) {
    super();
    this.port = port;
  }

  // handle answers a request.
  handle(req, res) {
    res.end('}');
  }
}

export default function () {
  return new Server(8080);
}

const { a, b: renamed, ...rest } = config(),
  other = 2;

let counter = 0
var legacy = 1

module.exports = {
  parseHTTPRequest,
};

(function iife() {
  counter++;
})();

const chained = [1, 2, 3]
  .map((x) => x * 2)
  .filter(Boolean);
