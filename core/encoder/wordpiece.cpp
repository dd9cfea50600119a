// implemented by the encoder work (issue 4)
