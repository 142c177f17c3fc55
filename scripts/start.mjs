// `npm start`: the exchange server. The REST, WebSocket and gRPC faces are not built yet (they
// come with the engine host and the REST face); until then this says so and exits cleanly, so the
// README's first command already works on a fresh machine.
console.log(`Predex ${process.env.npm_package_version ?? ''}

The matching engine (src/engine) is in place and tested; the server that puts it on the network
(REST on port 8080, gRPC on port 9090) is not built yet.

What you can run today:
  npm test                 the whole test suite
  npm run bench:engine     the engine benchmark against nodejs-order-book
`)
