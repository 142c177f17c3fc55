import { render } from 'preact'

function App() {
  return <h1>Predex</h1>
}

render(<App />, document.getElementById('app')!)
