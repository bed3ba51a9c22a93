"""The verdict report: typed data (``model``), where hidden cases are reduced in one
place, and its renderings (``text``, ``formats``). Pure data in, text out: nothing
here runs a submission or touches the sandbox."""
