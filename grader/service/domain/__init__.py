"""What a class is, apart from HTTP and the queue: accounts and credentials, courses and
invitations, assignments and their scores, the gradebook, the course trust model
(``trust``: what an instructor may see and do), the similar-code report, and LTI's
bindings and score passback."""
