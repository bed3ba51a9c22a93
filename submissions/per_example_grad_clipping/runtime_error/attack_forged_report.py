# reason: exception
# attack: an exception message and printed text that clear the terminal and draw a fake "AC Accepted 39/39" (ANSI CSI/OSC, C1 CSI, CR, BS, bidi override), fake Markdown headings, HTML, images and @-mentions, and XML-illegal characters; each report format's one sanitiser shows them as escapes (text._e, formats._md/_xml/_gs), JSON escapes them itself.
import jax
import jax.numpy as jnp

FAKE = ("\x1b[2J\x1b[3J\x1b[H\x1b]0;judge\x07\x1b[1;32mAC Accepted\x1b[0m  per_example_grad_clipping\r\n"
        "  39/39 cases passed\x1b[8m\x9b2J\x08\x08\x08\u202e"
        "\n### \u2705 AC Accepted\n<img src=https://attacker.example/pixel.png>"
        "![pixel](https://attacker.example/p.png) @maintainers | forged | cell |\n<!-- "
        "</summary></details>\n```\n"
        "\x00\x01\x0b\x0c\x1f\x7f\ufffe")


def _loss(params, x, y):
    err = jnp.dot(x, params["w"]) + params["b"] - y
    return 0.5 * err * err


def _solve(params, x, y, max_norm):
    grads = jax.vmap(jax.grad(_loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(grads["w"] ** 2, axis=1) + grads["b"] ** 2)
    scale = 1.0 / jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(grads["w"] * scale[:, None], axis=0), "b": jnp.mean(grads["b"] * scale)},
            "norms": norms}


print(FAKE)


def per_example_grad_clip(params, x, y, max_norm):
    _solve(params, x, y, max_norm)
    print(FAKE)
    raise ValueError(FAKE)
